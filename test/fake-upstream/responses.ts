import type { ServerResponse } from 'node:http';
import type { FakeRule } from './rules.js';

export const DEFAULT_REPLY = 'Hello from fake upstream';
export const DEFAULT_USAGE = { prompt_tokens: 10, completion_tokens: 20, cached_tokens: 0, cache_creation_tokens: 0 };

const created = () => Math.floor(Date.now() / 1000);
const wait = (ms?: number) => (ms ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined);

export function usageOf(rule?: FakeRule) {
  const usage = { ...DEFAULT_USAGE, ...rule?.usage };
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: {
      cached_tokens: usage.cached_tokens,
      ...('image_tokens' in usage ? { image_tokens: usage.image_tokens } : {}),
      ...('audio_tokens' in usage ? { audio_tokens: usage.audio_tokens } : {}),
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Errors in each provider's documented shape: Anthropic `{type:'error', error}`, Gemini `{error:{code,message,status}}`, else OpenAI's. */
export function sendError(res: ServerResponse, rule: FakeRule, pathname = ''): void {
  const headers: Record<string, string> = rule.retryAfter !== undefined ? { 'retry-after': String(rule.retryAfter) } : {};
  const message = rule.errorMessage ?? `fake upstream error ${rule.status}`;
  if (pathname.endsWith('/messages')) {
    sendJson(
      res,
      rule.status!,
      { type: 'error', error: { type: rule.status === 529 ? 'overloaded_error' : 'api_error', message } },
      headers,
    );
  } else if (pathname.includes('GenerateContent') || pathname.includes('generateContent')) {
    sendJson(
      res,
      rule.status!,
      { error: { code: rule.status, message, status: rule.status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL' } },
      headers,
    );
  } else sendJson(res, rule.status!, { error: { message, type: 'upstream_error', code: rule.status } }, headers);
}

/** `/v1/chat/completions` and `/v1/completions`, JSON or SSE. */
export async function sendCompletion(res: ServerResponse, body: any, rule: FakeRule | undefined, chat: boolean): Promise<void> {
  const reply = rule?.reply ?? DEFAULT_REPLY;
  const model = body?.model ?? 'gpt-4o-mini';
  const id = `${chat ? 'chatcmpl' : 'cmpl'}-fake${Date.now()}`;
  if (!body?.stream) {
    const choice = chat
      ? { index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }
      : { index: 0, text: reply, finish_reason: 'stop' };
    const answer: Record<string, unknown> = {
      id,
      object: chat ? 'chat.completion' : 'text_completion',
      created: created(),
      model,
      choices: [choice],
    };
    if (!rule?.omitUsage) answer.usage = usageOf(rule);
    if (rule?.padBytes) answer.padding = 'x'.repeat(rule.padBytes);
    sendJson(res, 200, answer);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const words = reply.split(/(?<= )/);
  const object = chat ? 'chat.completion.chunk' : 'text_completion';
  const frame = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
  if (chat && rule?.reasoning) {
    for (const thought of rule.reasoning.split(/(?<= )/)) {
      await wait(rule.chunkDelayMs);
      frame({ id, object, created: created(), model, choices: [{ index: 0, delta: { reasoning_content: thought }, finish_reason: null }] });
    }
  }
  for (let i = 0; i < words.length; i++) {
    if (rule?.resetAfterChunks !== undefined && i >= rule.resetAfterChunks) {
      // Let what was written reach the client first: a reset *mid*-stream, after real chunks.
      await new Promise((resolve) => res.write('', resolve));
      res.socket?.destroy();
      return;
    }
    await wait(rule?.chunkDelayMs);
    if (res.destroyed) return;
    const choice = chat
      ? { index: 0, delta: i === 0 ? { role: 'assistant', content: words[i] } : { content: words[i] }, finish_reason: null }
      : { index: 0, text: words[i], finish_reason: null };
    frame({ id, object, created: created(), model, choices: [choice] });
  }
  frame({
    id,
    object,
    created: created(),
    model,
    choices: [chat ? { index: 0, delta: {}, finish_reason: 'stop' } : { index: 0, text: '', finish_reason: 'stop' }],
  });
  if (body?.stream_options?.include_usage && !rule?.omitUsage)
    frame({ id, object, created: created(), model, choices: [], usage: usageOf(rule) });
  res.end('data: [DONE]\n\n');
}

export function sendEmbeddings(res: ServerResponse, body: any, rule: FakeRule | undefined): void {
  const inputs: unknown[] = Array.isArray(body?.input) ? body.input : [body?.input ?? ''];
  const usage = usageOf(rule);
  sendJson(res, 200, {
    object: 'list',
    data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3, index] })),
    model: body?.model ?? 'text-embedding-3-small',
    ...(rule?.omitUsage ? {} : { usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens } }),
  });
}

/** Anthropic's usage: input_tokens excludes cache reads and writes (reported apart). */
function anthropicUsage(rule: FakeRule | undefined) {
  const usage = { ...DEFAULT_USAGE, ...rule?.usage };
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    cache_read_input_tokens: usage.cached_tokens,
    cache_creation_input_tokens: usage.cache_creation_tokens,
  };
}

/** Anthropic `/v1/messages`, JSON or its event stream. */
export async function sendAnthropic(res: ServerResponse, body: any, rule: FakeRule | undefined): Promise<void> {
  const reply = rule?.reply ?? DEFAULT_REPLY;
  const usage = usageOf(rule);
  const model = body?.model ?? 'claude-3-5-sonnet-20241022';
  if (!body?.stream) {
    sendJson(res, 200, {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text: reply }],
      stop_reason: 'end_turn',
      usage: anthropicUsage(rule),
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (type: string, data: unknown) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...(data as object) })}\n\n`);
  event('message_start', {
    message: {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      usage: { ...anthropicUsage(rule), output_tokens: 1 },
    },
  });
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  for (const word of reply.split(/(?<= )/)) {
    await wait(rule?.chunkDelayMs);
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word } });
  }
  event('content_block_stop', { index: 0 });
  event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: usage.completion_tokens } });
  event('message_stop', {});
  res.end();
}

/** Gemini `:embedContent` (`{embedding:{values}}`) and `:batchEmbedContents` (one embedding per request). */
export function sendGeminiEmbedding(res: ServerResponse, body: any, batch: boolean): void {
  const vector = (index: number) => ({ values: [0.1, 0.2, 0.3, index] });
  if (!batch) {
    sendJson(res, 200, { embedding: vector(0) });
    return;
  }
  const requests: unknown[] = Array.isArray(body?.requests) ? body.requests : [];
  sendJson(res, 200, { embeddings: requests.map((_, index) => vector(index)) });
}

/** Gemini `:generateContent` and `:streamGenerateContent?alt=sse`. */
export function sendGemini(res: ServerResponse, stream: boolean, rule: FakeRule | undefined): void {
  const reply = rule?.reply ?? DEFAULT_REPLY;
  const usage = usageOf(rule);
  // Gemini repeats usageMetadata on every streamed chunk with the totals so far (cumulative, not per chunk).
  const answer = (text: string, last: boolean, candidates: number) => ({
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: last ? 'STOP' : undefined, index: 0 }],
    usageMetadata: {
      promptTokenCount: usage.prompt_tokens,
      candidatesTokenCount: candidates,
      totalTokenCount: usage.prompt_tokens + candidates,
    },
  });
  if (!stream) {
    sendJson(res, 200, answer(reply, true, usage.completion_tokens));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const words = reply.split(/(?<= )/);
  words.forEach((word, i) => {
    const last = i === words.length - 1;
    res.write(
      `data: ${JSON.stringify(answer(word, last, last ? usage.completion_tokens : Math.min(i + 1, usage.completion_tokens)))}\r\n\r\n`,
    );
  });
  res.end();
}
