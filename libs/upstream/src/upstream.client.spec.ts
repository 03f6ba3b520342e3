import diagnostics from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { errors } from 'undici';
import { toUpstreamError, UPSTREAM_CALL_CHANNEL, UPSTREAM_HEADERS_CHANNEL, UpstreamClient } from './upstream.client.js';
import { buildUpstreamRequest, isOpenAiCompatible } from './upstream-url.js';
import { UpstreamError, type UpstreamTarget } from './upstream.types.js';

const target = (type: number, baseUrl: string, extra: Partial<UpstreamTarget> = {}): UpstreamTarget => ({
  id: 1,
  type,
  key: 'sk-secret',
  baseUrl,
  other: '',
  ...extra,
});

describe('buildUpstreamRequest', () => {
  it('builds OpenAI-compatible URLs with a bearer key', () => {
    const built = buildUpstreamRequest(target(1, 'https://api.example.com/'), 'chat', { body: { model: 'gpt-4o' } });
    expect(built).toMatchObject({ url: 'https://api.example.com/v1/chat/completions', method: 'POST' });
    expect(built.headers.authorization).toBe('Bearer sk-secret');
    expect(built.headers['content-type']).toBe('application/json');
    expect(buildUpstreamRequest(target(1, ''), 'models').url).toBe('https://api.openai.com/v1/models');
    expect(buildUpstreamRequest(target(1, ''), 'models').method).toBe('GET');
    expect(buildUpstreamRequest(target(1, 'http://h'), 'embeddings').url).toBe('http://h/v1/embeddings');
    expect(buildUpstreamRequest(target(1, 'http://h'), 'billing_usage', { query: { start_date: '2024-01-01' } }).url).toBe(
      'http://h/v1/dashboard/billing/usage?start_date=2024-01-01',
    );
  });

  it('uses each type default base URL and path prefix', () => {
    const cases: [number, string][] = [
      [20, 'https://openrouter.ai/api/v1/chat/completions'],
      [43, 'https://api.deepseek.com/v1/chat/completions'],
      [25, 'https://api.moonshot.cn/v1/chat/completions'],
      [40, 'https://api.siliconflow.cn/v1/chat/completions'],
      [48, 'https://api.x.ai/v1/chat/completions'],
      [42, 'https://api.mistral.ai/v1/chat/completions'],
      [4, 'http://localhost:11434/v1/chat/completions'],
      [31, 'https://api.lingyiwanwu.com/v1/chat/completions'],
      [27, 'https://api.perplexity.ai/chat/completions'],
      [26, 'https://open.bigmodel.cn/api/paas/v4/chat/completions'],
      [19, 'https://api.360.cn/v1/chat/completions'],
      [45, 'https://ark.cn-beijing.volces.com/api/v3/chat/completions'],
      [46, 'https://qianfan.baidubce.com/v2/chat/completions'],
      [35, 'https://api.minimax.chat/v1/text/chatcompletion_v2'],
      [38, 'https://api.jina.ai/v1/chat/completions'],
      [53, 'https://llm.submodel.ai/v1/chat/completions'],
    ];
    for (const [type, url] of cases) {
      const built = buildUpstreamRequest(target(type, ''), 'chat', { model: 'm' });
      expect(built.url, `type ${type}`).toBe(url);
      expect(built.headers.authorization, `type ${type}`).toBe('Bearer sk-secret');
    }
    // Only the chat path of MiniMax moves; its other endpoints stay under /v1. A channel base URL wins.
    expect(buildUpstreamRequest(target(35, ''), 'embeddings').url).toBe('https://api.minimax.chat/v1/embeddings');
    expect(buildUpstreamRequest(target(43, 'http://proxy.local/ds/'), 'chat').url).toBe('http://proxy.local/ds/v1/chat/completions');
    expect(buildUpstreamRequest(target(47, 'http://xinference:9997'), 'chat').url).toBe('http://xinference:9997/v1/chat/completions');
  });

  it('builds Azure deployment URLs with api-key and api-version', () => {
    const built = buildUpstreamRequest(target(3, 'https://res.openai.azure.com'), 'chat', { model: 'gpt-4o' }, '2025-04-01-preview');
    expect(built.url).toBe('https://res.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2025-04-01-preview');
    expect(built.headers['api-key']).toBe('sk-secret');
    expect(built.headers.authorization).toBeUndefined();
    const custom = buildUpstreamRequest(target(3, 'https://res.openai.azure.com', { other: '2024-02-01' }), 'embeddings', {
      body: { model: 'emb' },
    });
    expect(custom.url).toBe('https://res.openai.azure.com/openai/deployments/emb/embeddings?api-version=2024-02-01');
    expect(custom.headers['api-key']).toBe('sk-secret');
    expect(() => buildUpstreamRequest(target(3, 'https://res.openai.azure.com'), 'billing_usage')).toThrow(/no billing/);
  });

  it('calls the Azure Responses API on its v1 surface, or with the api-version on AI Foundry resources', () => {
    const v1 = buildUpstreamRequest(target(3, 'https://res.openai.azure.com', { other: '2024-10-21' }), 'responses', { model: 'gpt-4.1' });
    expect(v1.url).toBe('https://res.openai.azure.com/openai/v1/responses?api-version=preview');
    expect(v1.headers['api-key']).toBe('sk-secret');
    const compact = buildUpstreamRequest(target(3, 'https://res.openai.azure.com'), 'responses_compact', { model: 'gpt-4.1' });
    expect(compact.url).toBe('https://res.openai.azure.com/openai/v1/responses/compact?api-version=preview');
    const foundry = buildUpstreamRequest(target(3, 'https://x.cognitiveservices.azure.com', { other: '2025-03-01-preview' }), 'responses', {
      model: 'gpt-4.1',
    });
    expect(foundry.url).toBe('https://x.cognitiveservices.azure.com/openai/responses?api-version=2025-03-01-preview');
  });

  it('keeps dots in Azure deployments of recent channels and drops them for channels older than 2025-05-10', () => {
    const url = (createdTime?: number) =>
      buildUpstreamRequest(target(3, 'https://res.openai.azure.com', { createdTime }), 'chat', { model: 'gpt-4.1-mini' }, 'v').url;
    const cutoff = Date.UTC(2025, 4, 10) / 1000;
    expect(url(cutoff - 1)).toBe('https://res.openai.azure.com/openai/deployments/gpt-41-mini/chat/completions?api-version=v');
    expect(url(cutoff)).toBe('https://res.openai.azure.com/openai/deployments/gpt-4.1-mini/chat/completions?api-version=v');
    expect(url(undefined)).toBe('https://res.openai.azure.com/openai/deployments/gpt-4.1-mini/chat/completions?api-version=v');
  });

  it('uses the custom full URL with {model}', () => {
    const built = buildUpstreamRequest(target(8, 'https://gw.example.com/x/{model}/chat'), 'chat', { model: 'a/b' });
    expect(built.url).toBe('https://gw.example.com/x/a%2Fb/chat');
    expect(() => buildUpstreamRequest(target(8, 'https://gw.example.com/chat'), 'models')).toThrow(UpstreamError);
  });

  it('applies header overrides, drops transport headers, fills {api_key}', () => {
    const built = buildUpstreamRequest(
      target(1, 'http://h', { headerOverride: { 'X-Api-Key': '{api_key}', Host: 'evil', 'X-Test': 'a' } }),
      'chat',
    );
    expect(built.headers['x-api-key']).toBe('sk-secret');
    expect(built.headers['x-test']).toBe('a');
    expect(built.headers.host).toBeUndefined();
  });

  it('refuses unsupported types and non-http base URLs', () => {
    expect(isOpenAiCompatible(1)).toBe(true);
    expect(isOpenAiCompatible(14)).toBe(false);
    expect(() => buildUpstreamRequest(target(14, ''), 'chat')).toThrow(expect.objectContaining({ kind: 'unsupported' }));
    expect(() => buildUpstreamRequest(target(1, 'file:///etc/passwd'), 'chat')).toThrow(expect.objectContaining({ kind: 'unsupported' }));
    expect(() => buildUpstreamRequest(target(47, ''), 'chat')).toThrow(expect.objectContaining({ kind: 'unsupported' }));
  });

  it('never lets a model name move the request to another origin', () => {
    const built = buildUpstreamRequest(target(3, 'https://res.example.com'), 'chat', { model: '@evil.com/x' });
    expect(new URL(built.url).origin).toBe('https://res.example.com');
  });
});

describe('UpstreamClient against a local server', () => {
  let server: Server;
  let base: string;
  let hits: { url: string; auth?: string }[] = [];
  let canaryHits = 0;
  let endlessClosed = false;
  let trickleClosed = false;
  let cut = false;
  let canary: Server;
  let canaryBase: string;

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/v1/chat/completions': (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    },
    '/big/v1/chat/completions': (_req, res) => res.end('x'.repeat(5000)),
    '/bigchunked/v1/chat/completions': (_req, res) => {
      res.write('x'.repeat(3000));
      res.end('y'.repeat(3000));
    },
    '/redirect/v1/chat/completions': (_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `${canaryBase}/v1/chat/completions`);
      res.end();
    },
    '/slow/v1/chat/completions': (_req, res) => {
      setTimeout(() => res.end('late'), 1500).unref();
    },
    '/events/v1/chat/completions': (_req, res) => {
      // 64 kB of events in small writes: far over the 4 kB text() cap, which a stream reader does not have.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const more = () => {
        while (sent < 256) {
          sent++;
          if (!res.write(`data: ${'x'.repeat(250)}\n\n`)) return void res.once('drain', more);
        }
        res.end('data: [DONE]\n\n');
      };
      more();
    },
    '/endless/v1/chat/completions': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write('data: tick\n\n'), 5);
      res.on('close', () => {
        clearInterval(timer);
        endlessClosed = true;
      });
    },
    '/cut/v1/chat/completions': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n', () => {
        res.socket?.destroy();
        cut = true;
      });
    },
    '/drip/v1/chat/completions': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      // then nothing: the idle timeout must fire
    },
    '/trickle/v1/chat/completions': (_req, res) => {
      // One event, then a byte every 30 ms that never ends a line (threats F4): bytes, but no progress.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      const timer = setInterval(() => res.write('x'), 30);
      res.on('close', () => {
        clearInterval(timer);
        trickleClosed = true;
      });
    },
    '/slow-lines/v1/chat/completions': (_req, res) => {
      // Events cut into pieces 40 ms apart, a line ending every 120 ms: slower in all than the idle timeout, never idle.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pieces = Array.from({ length: 8 }, (_, i) => ['data: {"n":', `${i}}`, '\n\n']).flat();
      const timer = setInterval(() => {
        res.write(pieces.shift()!);
        if (pieces.length === 0) {
          clearInterval(timer);
          res.end();
        }
      }, 40);
    },
    '/slow-json/v1/chat/completions': (_req, res) => {
      // A JSON answer without a line end, a piece every 40 ms for longer than the idle timeout: any byte is progress here.
      res.writeHead(200, { 'content-type': 'application/json' });
      const pieces = ['{"a":', '1,', '"b":', '2,', '"c":', '3,', '"d":', '4,', '"e":', '5}'];
      const timer = setInterval(() => {
        res.write(pieces.shift()!);
        if (pieces.length === 0) {
          clearInterval(timer);
          res.end();
        }
      }, 40);
    },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push({ url: req.url!, auth: req.headers.authorization });
      req.resume();
      const handler = routes[req.url!.split('?')[0]!];
      if (handler) handler(req, res);
      else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    canary = createServer((_req, res) => {
      canaryHits++;
      res.end('canary');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    canaryBase = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    canary.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await new Promise((resolve) => canary.close(resolve));
  });

  const client = (
    overrides: Partial<{
      timeoutSeconds: number;
      streamingTimeoutSeconds: number;
      maxResponseBytes: number;
      maxConnectionsPerOrigin: number;
    }> = {},
  ) =>
    new UpstreamClient({
      relay: {
        timeoutSeconds: 0,
        streamingTimeoutSeconds: 300,
        connectTimeoutSeconds: 2,
        forceStreamOption: true,
        difyDebug: true,
        azureDefaultApiVersion: '2025-04-01-preview',
        maxResponseBytes: 4096,
        maxConnectionsPerOrigin: 0,
        streamWriteIdleSeconds: 60,
        streamMaxBufferedBytes: 4 * 1024 * 1024,
        realtimeIdleSeconds: 90,
        ...overrides,
      },
    });

  it('sends the request and reads JSON', async () => {
    hits = [];
    const res = await client().send(target(1, base), 'chat', { body: { model: 'm', messages: [] } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(hits[0]).toEqual({ url: '/v1/chat/completions', auth: 'Bearer sk-secret' });
  });

  it('publishes each call when it is dispatched and when its head arrives, on either HTTP client', async () => {
    const seen: [string, unknown][] = [];
    const onCall = (message: unknown) => seen.push(['call', (message as { request: unknown }).request]);
    const onHeaders = (message: unknown) => seen.push(['headers', (message as { request: unknown }).request]);
    diagnostics.subscribe(UPSTREAM_CALL_CHANNEL.name, onCall);
    diagnostics.subscribe(UPSTREAM_HEADERS_CHANNEL.name, onHeaders);
    try {
      for (const c of [client(), client({ maxConnectionsPerOrigin: 4 })]) {
        seen.length = 0;
        const res = await c.send(target(1, base), 'chat', { body: { model: 'm', messages: [] } });
        expect(seen.map(([what]) => what)).toEqual(['call', 'headers']);
        expect(seen[1]![1]).toBe(seen[0]![1]);
        expect(String((seen[0]![1] as { body: unknown }).body)).toContain('"model":"m"');
        await res.text();
      }
    } finally {
      diagnostics.unsubscribe(UPSTREAM_CALL_CHANNEL.name, onCall);
      diagnostics.unsubscribe(UPSTREAM_HEADERS_CHANNEL.name, onHeaders);
    }
    // The bench's stage timer (a plain script, which cannot import this lib) subscribes to them by name.
    const stages = readFileSync(new URL('../../../scripts/bench/request-stages.mjs', import.meta.url), 'utf8');
    for (const channel of [UPSTREAM_CALL_CHANNEL, UPSTREAM_HEADERS_CHANNEL]) expect(stages).toContain(`'${String(channel.name)}'`);
  });

  it('reuses a built call per channel only where nothing else can change its URL', async () => {
    hits = [];
    const c = client();
    const azure = target(3, base);
    for (const init of [
      { model: 'dep-a' },
      { model: 'dep-b' },
      { body: { model: 'dep-c' } },
      { body: { model: 'dep-d' } },
      { model: 'dep-a' },
    ]) {
      await (await c.send(azure, 'chat', init)).text();
    }
    expect(hits.map((h) => h.url.split('?')[0])).toEqual(
      ['a', 'b', 'c', 'd', 'a'].map((d) => `/openai/deployments/dep-${d}/chat/completions`),
    );
  });

  it('returns upstream error statuses as responses', async () => {
    const res = await client().send(target(1, `${base}/missing`), 'chat', { body: {} });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('{}');
  });

  it('never follows a redirect and never sends the key elsewhere', async () => {
    canaryHits = 0;
    await expect(client().send(target(1, `${base}/redirect`), 'chat', { body: {} })).rejects.toMatchObject({ kind: 'redirect' });
    expect(canaryHits).toBe(0);
  });

  it('caps json()/text() at the response size limit', async () => {
    const c = client({ maxResponseBytes: 4096 });
    const withLength = await c.send(target(1, `${base}/big`), 'chat', { body: {} });
    await expect(withLength.text()).rejects.toMatchObject({ kind: 'too_large' });
    const chunked = await c.send(target(1, `${base}/bigchunked`), 'chat', { body: {} });
    await expect(chunked.text()).rejects.toMatchObject({ kind: 'too_large' });
  });

  it('caps text() when the whole oversized answer came in before it was asked for', async () => {
    // A stream request the provider answers with plain JSON is read with text(); the HTTP/1.1 client had
    // parsed the whole answer by then, and the refusal used to wait for a failure that could no longer come.
    const res = await client({ maxResponseBytes: 4096 }).send(target(1, `${base}/big`), 'chat', { body: {}, stream: true });
    await new Promise((resolve) => setImmediate(resolve));
    await expect(res.text()).rejects.toMatchObject({ kind: 'too_large' });
  });

  // Both clients: the lean HTTP/1.1 one, and undici's pool under a connection limit, whose failures are undici's.
  const clients = [
    ['the lean client', {}],
    ["undici's pool", { maxConnectionsPerOrigin: 4 }],
  ] as const;

  it.each(clients)('times out waiting for the first byte (%s)', async (_name, limits) => {
    const started = Date.now();
    await expect(client(limits).send(target(1, `${base}/slow`), 'chat', { body: {}, headersTimeoutMs: 300 })).rejects.toMatchObject({
      kind: 'timeout',
      message: 'upstream did not answer in time (first byte timeout)',
    });
    expect(Date.now() - started).toBeLessThan(1400);
  });

  it.each(clients)('times out an idle body (%s)', async (_name, limits) => {
    const res = await client(limits).send(target(1, `${base}/drip`), 'chat', { body: {}, stream: true, bodyTimeoutMs: 300 });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toMatchObject({ kind: 'timeout' });
  });

  it.each(clients)(
    'times out a stream that trickles bytes but never ends a line, and closes its connection (%s)',
    async (_name, limits) => {
      trickleClosed = false;
      const started = Date.now();
      const res = await client(limits).send(target(1, `${base}/trickle`), 'chat', { body: {}, stream: true, bodyTimeoutMs: 300 });
      const got: string[] = [];
      const errors: unknown[] = [];
      res.chunks!.start({ data: (chunk) => got.push(chunk.toString()), end: () => undefined, error: (error) => errors.push(error) });
      await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 3000 });
      // The same ending as a stream that went silent after its data (the `/drip` tests).
      expect(errors[0]).toMatchObject({ kind: 'timeout', message: 'upstream stopped sending (idle timeout)' });
      expect(got.join('')).toMatch(/^data: 1\n\nx+$/);
      expect(Date.now() - started).toBeLessThan(2500);
      await vi.waitFor(() => expect(trickleClosed).toBe(true), { timeout: 2000 });
    },
  );

  it.each(clients)('keeps a slow stream whose lines end within the idle timeout, and a slow JSON answer (%s)', async (_name, limits) => {
    const c = client(limits);
    const lines = await c.send(target(1, `${base}/slow-lines`), 'chat', { body: {}, stream: true, bodyTimeoutMs: 300 });
    expect(await lines.text()).toBe(Array.from({ length: 8 }, (_, i) => `data: {"n":${i}}\n\n`).join(''));
    const json = await c.send(target(1, `${base}/slow-json`), 'chat', { body: {}, bodyTimeoutMs: 300 });
    expect(await json.json()).toEqual({ a: 1, b: 2, c: 3, d: 4, e: 5 });
  });

  it.each(clients)('does not time a stream out while its reader holds it paused (%s)', async (_name, limits) => {
    endlessClosed = false;
    const res = await client(limits).send(target(1, `${base}/endless`), 'chat', { body: {}, stream: true, bodyTimeoutMs: 300 });
    const chunks = res.chunks!;
    let size = 0;
    const errors: unknown[] = [];
    chunks.start({ data: (chunk) => (size += chunk.length), end: () => undefined, error: (error) => errors.push(error) });
    await vi.waitFor(() => expect(size).toBeGreaterThan(0));
    chunks.pause();
    // A client slower than its upstream: nothing is read for longer than the idle timeout, and nothing is owed.
    await new Promise((resolve) => setTimeout(resolve, 800));
    const before = size;
    chunks.resume();
    await vi.waitFor(() => expect(size).toBeGreaterThan(before + 1000));
    expect(errors).toEqual([]);
    chunks.destroy();
    await vi.waitFor(() => expect(endlessClosed).toBe(true), { timeout: 2000 });
  });

  it.each(clients)('aborts on the signal (%s)', async (_name, limits) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(client(limits).send(target(1, `${base}/slow`), 'chat', { body: {}, signal: controller.signal })).rejects.toMatchObject({
      kind: 'aborted',
    });
  });

  it("maps undici's own failures by their codes, whichever copy of undici threw them", () => {
    expect(toUpstreamError(new errors.HeadersTimeoutError())).toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('first byte'),
    });
    expect(toUpstreamError(new errors.BodyTimeoutError())).toMatchObject({ kind: 'timeout', message: expect.stringContaining('idle') });
    expect(toUpstreamError(new errors.ConnectTimeoutError())).toMatchObject({
      kind: 'connect',
      message: expect.stringContaining('connect timeout'),
    });
    expect(toUpstreamError(new errors.RequestAbortedError())).toMatchObject({ kind: 'aborted' });
    expect(toUpstreamError(new errors.SocketError('other side closed'))).toMatchObject({
      kind: 'connect',
      message: expect.stringContaining('UND_ERR_SOCKET'),
    });
    // Node's fetch bundles its own undici: same codes, other classes.
    expect(toUpstreamError(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))).toMatchObject({ kind: 'timeout' });
  });

  it('streams a body of any size through `body`, with back-pressure, and refuses a second reader', async () => {
    const res = await client({ maxResponseBytes: 4096 }).send(target(1, `${base}/events`), 'chat', { body: {}, stream: true });
    expect(res.headers['content-type']).toBe('text/event-stream');
    const body = res.body;
    await expect(res.text()).rejects.toThrow('already read');
    let size = 0;
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      // A slow reader: undici must pause the socket rather than buffer without bound.
      if (size % 8192 < 512) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(size).toBe(256 * 258 + 14);
  });

  it('abandoning the body stream aborts the upstream request', async () => {
    endlessClosed = false;
    const res = await client().send(target(1, `${base}/endless`), 'chat', { body: {}, stream: true });
    const body = res.body;
    await new Promise((resolve) => body.once('data', resolve));
    body.destroy();
    await vi.waitFor(() => expect(endlessClosed).toBe(true), { timeout: 2000 });
  });

  it('hands a body chunk by chunk to one sink through `chunks`, pausing the connection while the sink is paused', async () => {
    const res = await client({ maxResponseBytes: 4096 }).send(target(1, `${base}/events`), 'chat', { body: {}, stream: true });
    const chunks = res.chunks!;
    expect(res.chunks).toBe(chunks);
    await expect(res.text()).rejects.toThrow('already read');
    let size = 0;
    let pauses = 0;
    const ended = new Promise<void>((resolve, reject) => {
      chunks.start({
        data: (chunk) => {
          size += chunk.length;
          // A slow reader: nothing arrives while paused, and the whole body still comes through.
          if (size % 8192 < 512) {
            pauses++;
            chunks.pause();
            setTimeout(() => chunks.resume(), 1);
          }
        },
        end: resolve,
        error: reject,
      });
    });
    await ended;
    expect(size).toBe(256 * 258 + 14);
    expect(pauses).toBeGreaterThan(0);
  });

  it('destroying the chunk reader aborts the upstream request; a failure reaches the sink as an error', async () => {
    endlessClosed = false;
    const res = await client().send(target(1, `${base}/endless`), 'chat', { body: {}, stream: true });
    const chunks = res.chunks!;
    const sink = { data: vi.fn(), end: vi.fn(), error: vi.fn() };
    chunks.start(sink);
    await vi.waitFor(() => expect(sink.data).toHaveBeenCalled());
    chunks.destroy();
    await vi.waitFor(() => expect(endlessClosed).toBe(true), { timeout: 2000 });
    expect(sink.end).not.toHaveBeenCalled();

    const idle = await client().send(target(1, `${base}/drip`), 'chat', { body: {}, stream: true, bodyTimeoutMs: 300 });
    const errors: unknown[] = [];
    idle.chunks!.start({ data: () => undefined, end: () => undefined, error: (error) => errors.push(error) });
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 2000 });
    expect(errors[0]).toMatchObject({ kind: 'timeout' });
  });

  it('a body that fails before any reader chose keeps what arrived: the chunk reader gets it, then the error', async () => {
    // The relay may hold an answer (its reserve has not committed) while the provider's stream breaks.
    cut = false;
    const res = await client().send(target(1, `${base}/cut`), 'chat', { body: {}, stream: true });
    await vi.waitFor(() => expect(cut).toBe(true));
    // The client sees the reset a moment after the server closed: give it that moment.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const got: string[] = [];
    const errors: unknown[] = [];
    res.chunks!.start({ data: (chunk) => got.push(chunk.toString()), end: () => undefined, error: (error) => errors.push(error) });
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 2000 });
    expect(got.join('')).toBe('data: 1\n\n');
    expect(errors[0]).toBeInstanceOf(UpstreamError);
  });

  it.each(clients)('reports connection failures (%s)', async (_name, limits) => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(client(limits).send(target(1, `http://127.0.0.1:${port}`), 'chat', { body: {} })).rejects.toMatchObject({
      kind: 'connect',
    });
  });
});
