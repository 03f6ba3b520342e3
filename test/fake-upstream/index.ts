// A fake OpenAI / Anthropic / Gemini-compatible provider on loopback, for e2e tests, browser tests and the
// benchmark. It answers like the real APIs (JSON and SSE, with usage) and can be scripted per request:
// status codes, latency, missing usage, mid-stream resets, hangs, redirects, oversized bodies.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ruleMatches, type FakeRule, type RecordedRequest } from './rules.js';
import { readForm, sendOpenAiExtra } from './openai-extra.js';
import { sendAnthropic, sendCompletion, sendEmbeddings, sendError, sendGemini, sendGeminiEmbedding, sendJson } from './responses.js';

export { DEFAULT_REPLY, DEFAULT_USAGE } from './responses.js';
export { FAKE_AUDIO_SECONDS, FAKE_SPEECH } from './openai-extra.js';
export type { FakeRule, RecordedRequest } from './rules.js';

export interface FakeUpstream {
  url: string;
  /** Every request received, in order (bodies parsed when JSON). */
  requests: RecordedRequest[];
  /** Adds a rule; the first matching rule (in insertion order) shapes the answer. */
  script(rule: FakeRule): void;
  /** Forgets rules and recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeUpstreamOptions {
  /** Models listed by `GET /v1/models`. */
  models?: string[];
  /** Record requests (off in the benchmark, to keep memory flat). */
  record?: boolean;
}

const DEFAULT_MODELS = ['gpt-4o-mini', 'gpt-4o', 'text-embedding-3-small', 'gpt-3.5-turbo-instruct'];

/** An endless chat stream, written only while the reader keeps up ('drain'), so the reader's pace shows in bytesSent. */
function sendFlood(res: ServerResponse, entry: RecordedRequest): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = `data: ${JSON.stringify({ id: 'chatcmpl-flood', object: 'chat.completion.chunk', created: 1, model: 'flood', choices: [{ index: 0, delta: { content: 'flood '.repeat(100) }, finish_reason: null }] })}\n\n`;
  const block = event.repeat(16);
  entry.bytesSent = 0;
  let open = true;
  res.on('close', () => (open = false));
  const pump = () => {
    while (open) {
      entry.bytesSent! += block.length;
      if (!res.write(block)) break;
    }
    if (open) res.once('drain', pump);
  };
  pump();
}

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const rules: FakeRule[] = [];
  const requests: RecordedRequest[] = [];
  const models = options.models ?? DEFAULT_MODELS;
  const record = options.record ?? true;

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: 'fake upstream crashed', type: 'server_error' } });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = /^multipart\/form-data/i.test(req.headers['content-type'] ?? '')
        ? await readForm(Buffer.concat(chunks), req.headers['content-type']!)
        : text
          ? JSON.parse(text)
          : undefined;
    } catch {
      body = text;
    }
    const path = req.url ?? '/';
    const pathname = path.split('?')[0]!;
    const entry: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, time: Date.now(), aborted: false };
    if (record) requests.push(entry);
    res.on('close', () => {
      if (!res.writableFinished) entry.aborted = true;
    });

    const rule = rules.find((candidate) => ruleMatches(candidate, req, pathname, body));
    if (rule && rule.times !== undefined) rule.times -= 1;
    if (rule?.delayMs) await new Promise((resolve) => setTimeout(resolve, rule.delayMs));
    if (rule?.hang) return; // never answers: timeout tests
    if (rule?.flood) return sendFlood(res, entry);
    if (rule?.redirectTo) {
      res.writeHead(302, { location: rule.redirectTo });
      res.end();
      return;
    }
    if (rule?.raw) {
      res.writeHead(rule.raw.status ?? 200, { 'content-type': rule.raw.contentType });
      const pieces = Array.isArray(rule.raw.body) ? rule.raw.body : [rule.raw.body];
      for (const [i, piece] of pieces.entries()) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, rule.chunkDelayMs ?? 20));
        res.write(piece);
      }
      res.end();
      return;
    }
    if (rule?.status && rule.status !== 200) {
      sendError(res, rule, pathname);
      return;
    }

    if (sendOpenAiExtra(pathname, res, body, rule)) return;
    if (pathname.endsWith('/chat/completions')) return sendCompletion(res, body, rule, true);
    if (pathname.endsWith('/completions')) return sendCompletion(res, body, rule, false);
    if (pathname.endsWith('/embeddings')) return sendEmbeddings(res, body, rule);
    if (pathname.endsWith('/messages')) return sendAnthropic(res, body, rule);
    if (pathname.includes(':embedContent')) return sendGeminiEmbedding(res, body, false);
    if (pathname.includes(':batchEmbedContents')) return sendGeminiEmbedding(res, body, true);
    if (pathname.includes(':streamGenerateContent')) return sendGemini(res, true, rule);
    if (pathname.includes(':generateContent')) return sendGemini(res, false, rule);
    if (pathname.endsWith('/models') && req.method === 'GET') {
      sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake' })) });
      return;
    }
    sendJson(res, 404, { error: { message: `fake upstream: no route ${req.method} ${pathname}`, type: 'invalid_request_error' } });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    script: (rule) => rules.push({ ...rule }),
    reset: () => {
      rules.length = 0;
      requests.length = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
