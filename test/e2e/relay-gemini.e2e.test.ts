import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPLY } from '../fake-upstream/index.js';
import {
  ERROR_INVALID_ARGUMENT,
  RESPONSE_FUNCTION_CALL,
  RESPONSE_PROMPT_BLOCKED,
  STREAM_PROMPT_BLOCKED,
  STREAM_TEXT,
} from '../fixtures/relay-formats/gemini.js';
import { testDatabases } from '../support/databases.js';
import { relayError } from '../support/relay-error.js';
import { CLAUDE, expectRow, formatQuota, GEMINI, OPENAI, startFormatsFixture, type FormatsFixture } from './relay-formats-fixture.js';

const json = (body: unknown) => ({ contentType: 'application/json', body: JSON.stringify(body) });
const sse = (body: string) => ({ contentType: 'text/event-stream', body });
const ASK = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

/** Gemini's SSE data payloads, parsed. */
function events(text: string): any[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

describe.each(testDatabases())('relay: Gemini generateContent on %s', (kind) => {
  let f: FormatsFixture;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${f.gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    f = await startFormatsFixture(kind);
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  describe('to a native Gemini channel (type 24): pass-through', () => {
    it('takes the key from ?key=, calls the model path with x-goog-api-key and the body untouched', async () => {
      const res = await post(`/v1beta/models/${GEMINI}:generateContent?key=${f.apiToken.key}`, ASK);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.candidates[0].content.parts[0].text).toBe(DEFAULT_REPLY);
      const sent = f.up.requests[0]!;
      expect(sent.path).toBe(`/v1beta/models/${GEMINI}:generateContent`);
      expect(sent.headers['x-goog-api-key']).toBe('gemini-up-key');
      expect(sent.path).not.toContain('key=');
      expect(sent.body).toEqual(ASK);
      const usage = { prompt: 10, completion: 20 };
      expectRow(await f.row(res.headers.get('x-oneapi-request-id')), {
        model: GEMINI,
        ...usage,
        quota: formatQuota(usage),
        stream: false,
        path: `/v1beta/models/${GEMINI}:generateContent`,
      });
    });

    it('streams with x-goog-api-key and counts the cumulative usage once (parity with non-stream)', async () => {
      const res = await post(`/v1beta/models/${GEMINI}:streamGenerateContent?alt=sse`, ASK, { 'x-goog-api-key': f.apiToken.key });
      expect(res.status).toBe(200);
      const chunks = events(await res.text());
      expect(chunks.map((c) => c.candidates[0].content.parts[0].text).join('')).toBe(DEFAULT_REPLY);
      expect(f.up.requests[0]!.path).toBe(`/v1beta/models/${GEMINI}:streamGenerateContent?alt=sse`);
      const usage = { prompt: 10, completion: 20 };
      expectRow(await f.row(res.headers.get('x-oneapi-request-id')), {
        model: GEMINI,
        ...usage,
        quota: formatQuota(usage),
        stream: true,
        path: `/v1beta/models/${GEMINI}:streamGenerateContent`,
      });
    });

    it('bills thoughts as output and cached content at the cache ratio, stream and non-stream alike (fixtures)', async () => {
      const usage = { prompt: 120, completion: 38, cached: 20 };
      f.up.script({ times: 1, raw: json(RESPONSE_FUNCTION_CALL) });
      const once = await post(`/v1/models/${GEMINI}:generateContent`, ASK, { 'x-goog-api-key': f.apiToken.key });
      expect((await once.json()).candidates[0].content.parts[1].functionCall).toEqual({ name: 'get_weather', args: { location: 'Paris' } });
      expectRow(await f.row(once.headers.get('x-oneapi-request-id')), {
        model: GEMINI,
        ...usage,
        quota: formatQuota(usage),
        stream: false,
        path: `/v1/models/${GEMINI}:generateContent`,
      });

      f.up.script({ times: 1, raw: sse(STREAM_TEXT) });
      const streamed = await post(`/v1beta/models/${GEMINI}:streamGenerateContent?alt=sse`, ASK, { 'x-goog-api-key': f.apiToken.key });
      expect(events(await streamed.text())).toHaveLength(3);
      expectRow(await f.row(streamed.headers.get('x-oneapi-request-id')), {
        model: GEMINI,
        ...usage,
        quota: formatQuota(usage),
        stream: true,
        path: `/v1beta/models/${GEMINI}:streamGenerateContent`,
      });
    });

    it("answers provider errors in Gemini's shape and refunds", async () => {
      const before = await f.quota(f.user.id);
      f.up.script({ times: 1, raw: { status: 400, ...json(ERROR_INVALID_ARGUMENT) } });
      const res = await post(`/v1beta/models/${GEMINI}:generateContent`, ASK, { 'x-goog-api-key': f.apiToken.key });
      expect(res.status).toBe(400);
      expect(relayError({ headers: res.headers, body: await res.json() })).toEqual({
        error: { code: 400, message: ERROR_INVALID_ARGUMENT.error.message, status: 'INVALID_ARGUMENT' },
      });
      expect(await f.quota(f.user.id)).toBe(before);
    });
  });

  describe('to other channel families: converted through OpenAI chat', () => {
    it('converts a Gemini request to OpenAI chat and the answer back to Gemini', async () => {
      const res = await post(
        `/v1beta/models/${OPENAI}:generateContent`,
        {
          systemInstruction: { parts: [{ text: 'be brief' }] },
          contents: [
            { role: 'user', parts: [{ text: 'look' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
            { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { location: 'Paris' } } }] },
            { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { sky: 'clear' } } }] },
          ],
          generationConfig: { maxOutputTokens: 50, temperature: 0.2, stopSequences: ['END'] },
          tools: [
            {
              functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } }],
            },
          ],
        },
        { 'x-goog-api-key': f.apiToken.key },
      );
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.candidates[0]).toMatchObject({ content: { role: 'model', parts: [{ text: DEFAULT_REPLY }] }, finishReason: 'STOP' });
      expect(body.usageMetadata).toEqual({ promptTokenCount: 10, candidatesTokenCount: 20, totalTokenCount: 30 });
      const sent = f.up.requests[0]!;
      expect(sent.path).toBe('/v1/chat/completions');
      const callId = sent.body.messages[2].tool_calls[0].id;
      expect(sent.body).toMatchObject({
        model: OPENAI,
        max_tokens: 50,
        temperature: 0.2,
        stop: ['END'],
        messages: [
          { role: 'system', content: 'be brief' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            ],
          },
          { role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }] },
          { role: 'tool', tool_call_id: callId, content: '{"sky":"clear"}' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather' } }],
      });
      const usage = { prompt: 10, completion: 20 };
      expectRow(await f.row(res.headers.get('x-oneapi-request-id')), {
        model: OPENAI,
        ...usage,
        quota: formatQuota(usage),
        stream: false,
        conversion: ['gemini', 'openai'],
        path: `/v1beta/models/${OPENAI}:generateContent`,
      });
    });

    it('streams a converted answer as Gemini chunks with the usage on the last (parity)', async () => {
      const res = await post(`/v1beta/models/${OPENAI}:streamGenerateContent?alt=sse`, ASK, { 'x-goog-api-key': f.apiToken.key });
      const chunks = events(await res.text());
      expect(chunks.map((c) => c.candidates[0].content.parts.map((p: any) => p.text ?? '').join('')).join('')).toBe(DEFAULT_REPLY);
      expect(chunks.at(-1)).toMatchObject({
        candidates: [{ finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 20 },
      });
      const usage = { prompt: 10, completion: 20 };
      expectRow(await f.row(res.headers.get('x-oneapi-request-id')), {
        model: OPENAI,
        ...usage,
        quota: formatQuota(usage),
        stream: true,
        conversion: ['gemini', 'openai'],
        path: `/v1beta/models/${OPENAI}:streamGenerateContent`,
      });
    });

    it('reaches a Claude channel too (Gemini → hub → Anthropic), streamed and not, with the same usage', async () => {
      const res = await post(`/v1beta/models/${CLAUDE}:generateContent`, ASK, { 'x-goog-api-key': f.apiToken.key });
      expect((await res.json()).candidates[0].content.parts[0].text).toBe(DEFAULT_REPLY);
      expect(f.up.requests[0]!.path).toBe('/v1/messages');
      expect(f.up.requests[0]!.body).toMatchObject({
        model: CLAUDE,
        max_tokens: 8192,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      });
      const usage = { prompt: 10, completion: 20 };
      const want = { model: CLAUDE, ...usage, quota: formatQuota(usage), conversion: ['gemini', 'anthropic'] };
      expectRow(await f.row(res.headers.get('x-oneapi-request-id')), {
        ...want,
        stream: false,
        path: `/v1beta/models/${CLAUDE}:generateContent`,
      });
      const streamed = await post(`/v1beta/models/${CLAUDE}:streamGenerateContent?alt=sse`, ASK, { 'x-goog-api-key': f.apiToken.key });
      const chunks = events(await streamed.text());
      expect(chunks.map((c) => c.candidates[0].content.parts.map((p: { text?: string }) => p.text ?? '').join('')).join('')).toBe(
        DEFAULT_REPLY,
      );
      expect(chunks.at(-1).usageMetadata).toMatchObject({ promptTokenCount: 10, candidatesTokenCount: 20 });
      expectRow(await f.row(streamed.headers.get('x-oneapi-request-id')), {
        ...want,
        stream: true,
        path: `/v1beta/models/${CLAUDE}:streamGenerateContent`,
      });
    });
  });

  describe('a prompt Gemini refuses (promptFeedback.blockReason, no candidates)', () => {
    const blockedUsage = { prompt: 12, completion: 0 };
    const chat = (body: Record<string, unknown>) =>
      post(
        '/v1/chat/completions',
        { model: GEMINI, messages: [{ role: 'user', content: 'hi' }], ...body },
        {
          authorization: `Bearer ${f.apiToken.key}`,
        },
      );

    it("answers an OpenAI client new-api's 400 prompt_blocked, once, refunded and never billed", async () => {
      const before = await f.quota(f.user.id);
      f.up.script({ times: 1, raw: json(RESPONSE_PROMPT_BLOCKED) });
      const res = await chat({});
      expect(res.status).toBe(400);
      expect(relayError({ headers: res.headers, body: await res.json() })).toEqual({
        error: { message: 'request blocked by Gemini API: PROHIBITED_CONTENT', type: 'prompt_blocked', param: '', code: 'prompt_blocked' },
      });
      expect(f.up.requests).toHaveLength(1);
      expect(await f.quota(f.user.id)).toBe(before);
      expect(await f.logs({ requestId: res.headers.get('x-oneapi-request-id'), type: 2 })).toEqual([]);
    });

    it('answers an Anthropic client the same refusal in its own error shape', async () => {
      f.up.script({ times: 1, raw: json(RESPONSE_PROMPT_BLOCKED) });
      const res = await post(
        '/v1/messages',
        { model: GEMINI, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
        { 'x-api-key': f.apiToken.key, 'anthropic-version': '2023-06-01' },
      );
      expect(res.status).toBe(400);
      expect(relayError({ headers: res.headers, body: await res.json() })).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'request blocked by Gemini API: PROHIBITED_CONTENT' },
      });
    });

    it('passes the refusal through to a Gemini client, as new-api does, billed for the prompt Gemini read', async () => {
      f.up.script({ times: 1, raw: json(RESPONSE_PROMPT_BLOCKED) });
      const res = await post(`/v1beta/models/${GEMINI}:generateContent`, ASK, { 'x-goog-api-key': f.apiToken.key });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(RESPONSE_PROMPT_BLOCKED);
      expectRow(await f.row(res.headers.get('x-oneapi-request-id')), {
        model: GEMINI,
        ...blockedUsage,
        quota: formatQuota(blockedUsage),
        stream: false,
        path: `/v1beta/models/${GEMINI}:generateContent`,
      });
    });

    it('ends an OpenAI stream as new-api does: no finish reason, no error, the prompt billed', async () => {
      f.up.script({ times: 1, raw: sse(STREAM_PROMPT_BLOCKED) });
      const res = await chat({ stream: true, stream_options: { include_usage: true } });
      expect(res.status).toBe(200);
      const text = await res.text();
      const chunks = text
        .split('\n')
        .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
        .map((line) => JSON.parse(line.slice(6)));
      expect(chunks.flatMap((c) => c.choices.map((choice: any) => choice.finish_reason)).filter(Boolean)).toEqual([]);
      expect(chunks.at(-1).usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 0 });
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      expectRow(await f.row(res.headers.get('x-oneapi-request-id')), {
        model: GEMINI,
        ...blockedUsage,
        quota: formatQuota(blockedUsage),
        stream: true,
        conversion: ['openai', 'gemini'],
        path: '/v1/chat/completions',
      });
    });
  });

  describe('thinking (new-api gemini.thinking_adapter_enabled)', () => {
    const THINKER = 'fmt-gemini-think';
    const chat = (model: string, body: Record<string, unknown> = {}) =>
      post(
        '/v1/chat/completions',
        { model, messages: [{ role: 'user', content: 'hi' }], ...body },
        {
          authorization: `Bearer ${f.apiToken.key}`,
        },
      );

    beforeAll(async () => {
      const options = (await f.root.get('/api/option/')).body.data as { key: string; value: string }[];
      const ratios = JSON.parse(options.find((o) => o.key === 'ModelRatio')!.value);
      await f.setOption('ModelRatio', { ...ratios, [THINKER]: 1 });
      await f.channel({
        type: 24,
        models: THINKER,
        key: 'gemini-think-key',
        model_mapping: JSON.stringify({ [THINKER]: 'gemini-2.5-flash-thinking-2048' }),
      });
    });
    afterAll(async () => {
      await f.setOption('gemini.thinking_adapter_enabled', 'false');
    });

    it('sends no thinkingConfig for a reasoning_effort alone (the adapter is off by default)', async () => {
      const res = await chat(GEMINI, { reasoning_effort: 'high' });
      expect(res.status).toBe(200);
      expect(f.up.requests[0]!.body.generationConfig?.thinkingConfig).toBeUndefined();
    });

    it('turns a -thinking-<budget> model into thinkingConfig and calls Gemini without the suffix, converted or native', async () => {
      await f.setOption('gemini.thinking_adapter_enabled', 'true');
      const converted = await chat(THINKER, { max_tokens: 500 });
      expect(converted.status).toBe(200);
      const native = await post(`/v1beta/models/${THINKER}:generateContent`, ASK, { 'x-goog-api-key': f.apiToken.key });
      expect(native.status).toBe(200);
      for (const sent of f.up.requests) {
        expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
        expect(sent.body.generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 2048 });
      }
      expect(f.up.requests).toHaveLength(2);
    });
  });

  describe("an OpenAI client's extra_body.google", () => {
    const chat = (body: Record<string, unknown>) =>
      post(
        '/v1/chat/completions',
        { model: GEMINI, messages: [{ role: 'user', content: 'hi' }], ...body },
        { authorization: `Bearer ${f.apiToken.key}` },
      );

    it('reaches Gemini as generationConfig.thinkingConfig and imageConfig', async () => {
      const google = { thinking_config: { thinking_budget: 1024, include_thoughts: true }, image_config: { aspect_ratio: '16:9' } };
      const res = await chat({ extra_body: { google } });
      expect(res.status).toBe(200);
      // Settled (its row written) before the next test reads the balance.
      await f.row(res.headers.get('x-oneapi-request-id'));
      expect(f.up.requests[0]!.body.generationConfig).toMatchObject({
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
        imageConfig: { aspectRatio: '16:9' },
      });
    });

    it('refuses a camelCase field with a 400 naming the right one, calling no provider and charging nothing', async () => {
      const before = await f.quota(f.user.id);
      const res = await chat({ extra_body: { google: { thinking_config: { thinkingBudget: 1024 } } } });
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toContain('use extra_body.google.thinking_config.thinking_budget instead');
      expect(f.up.requests).toHaveLength(0);
      expect(await f.quota(f.user.id)).toBe(before);
    });
  });

  describe('the route', () => {
    it("refuses bad input and bad keys with Gemini's error shape", async () => {
      const noContents = await post(`/v1beta/models/${GEMINI}:generateContent`, { prompt: 'x' }, { 'x-goog-api-key': f.apiToken.key });
      expect(noContents.status).toBe(400);
      expect(relayError({ headers: noContents.headers, body: await noContents.json() })).toEqual({
        error: { code: 400, message: 'contents must be an array', status: 'INVALID_ARGUMENT' },
      });
      const broken = await fetch(`${f.gw.url}/v1beta/models/${GEMINI}:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': f.apiToken.key },
        body: '{oops',
      });
      expect(broken.status).toBe(400);
      expect((await broken.json()).error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      const badKey = await post(`/v1beta/models/${GEMINI}:generateContent?key=sk-nope`, ASK);
      expect(badKey.status).toBe(401);
      expect((await badKey.json()).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
      expect(f.up.requests).toHaveLength(0);
    });
  });
});
