import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPLY } from '../fake-upstream/index.js';
import {
  ERROR_OVERLOADED,
  MESSAGE_CACHE_1H,
  MESSAGE_TOOL_USE,
  STREAM_CACHE_1H_ZERO_DELTA,
  STREAM_ERROR_FIRST,
  STREAM_THINKING_TOOL,
} from '../fixtures/relay-formats/anthropic.js';
import { CHAT_STREAM_TOOL_CALL, CHAT_TOOL_CALL } from '../fixtures/relay-formats/openai.js';
import { testDatabases } from '../support/databases.js';
import { relayError } from '../support/relay-error.js';
import { CLAUDE, expectRow, formatQuota, GEMINI, OPENAI, startFormatsFixture, type FormatsFixture } from './relay-formats-fixture.js';

const TOOLS = [
  {
    name: 'get_weather',
    description: 'Weather of a place',
    input_schema: { type: 'object' as const, properties: { location: { type: 'string' } }, required: ['location'] },
  },
];
const json = (body: unknown) => ({ contentType: 'application/json', body: JSON.stringify(body) });
const sse = (body: string) => ({ contentType: 'text/event-stream', body });

describe.each(testDatabases())('relay: Anthropic Messages (/v1/messages) on %s', (kind) => {
  let f: FormatsFixture;

  beforeAll(async () => {
    f = await startFormatsFixture(kind);
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  describe('to a native Claude channel (type 14): pass-through', () => {
    it('forwards the body untouched with the channel key and version headers, and bills the usage', async () => {
      const { data, response } = await f
        .anthropic()
        .messages.create(
          { model: CLAUDE, max_tokens: 64, system: 'be brief', messages: [{ role: 'user', content: 'hi' }], metadata: { user_id: 'u-1' } },
          { headers: { 'anthropic-version': '2023-06-01' } },
        )
        .withResponse();
      expect(data.content).toEqual([{ type: 'text', text: DEFAULT_REPLY }]);
      expect(data.usage.input_tokens).toBe(10);
      const sent = f.up.requests[0]!;
      expect(sent.path).toBe('/v1/messages');
      expect(sent.headers['x-api-key']).toBe('claude-up-key');
      expect(sent.headers['anthropic-version']).toBe('2023-06-01');
      expect(sent.headers.authorization).toBeUndefined();
      expect(sent.body).toEqual({
        model: CLAUDE,
        max_tokens: 64,
        system: 'be brief',
        messages: [{ role: 'user', content: 'hi' }],
        metadata: { user_id: 'u-1' },
      });
      const row = await f.row(response.headers.get('x-oneapi-request-id'));
      expectRow(row, {
        model: CLAUDE,
        prompt: 10,
        completion: 20,
        quota: formatQuota({ prompt: 10, completion: 20 }),
        stream: false,
        path: '/v1/messages',
      });
    });

    it('streams the provider events as they are and bills the same usage (stream/non-stream parity)', async () => {
      const stream = f.anthropic().messages.stream({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
      const types: string[] = [];
      stream.on('streamEvent', (event) => types.push(event.type));
      const message = await stream.finalMessage();
      expect(message.content).toEqual([{ type: 'text', text: DEFAULT_REPLY }]);
      expect(types[0]).toBe('message_start');
      expect(types.at(-1)).toBe('message_stop');
      const [row] = await f.logCount({ modelName: CLAUDE, isStream: true }, 1);
      expectRow(row, {
        model: CLAUDE,
        prompt: 10,
        completion: 20,
        quota: formatQuota({ prompt: 10, completion: 20 }),
        stream: true,
        path: '/v1/messages',
      });
    });

    it('bills cache reads and writes at their ratios, stream and non-stream alike (tool use fixture)', async () => {
      const usage = { prompt: 180, completion: 40, cached: 100, created: 50 };
      f.up.script({ times: 1, raw: json(MESSAGE_TOOL_USE) });
      const { data, response } = await f
        .anthropic()
        .messages.create({ model: CLAUDE, max_tokens: 256, tools: TOOLS, messages: [{ role: 'user', content: 'weather in SF?' }] })
        .withResponse();
      expect(data.stop_reason).toBe('tool_use');
      expect(data.content[1]).toMatchObject({
        type: 'tool_use',
        name: 'get_weather',
        input: { location: 'San Francisco, CA', unit: 'celsius' },
      });
      expectRow(await f.row(response.headers.get('x-oneapi-request-id')), {
        model: CLAUDE,
        ...usage,
        quota: formatQuota(usage),
        stream: false,
        path: '/v1/messages',
      });

      f.up.script({ times: 1, raw: sse(STREAM_THINKING_TOOL) });
      const message = await f
        .anthropic()
        .messages.stream({ model: CLAUDE, max_tokens: 256, tools: TOOLS, messages: [{ role: 'user', content: 'weather in SF?' }] })
        .finalMessage();
      expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
      expect(message.content[2]).toMatchObject({ input: { location: 'San Francisco, CA', unit: 'celsius' } });
      expect(message.usage).toMatchObject({
        input_tokens: 30,
        output_tokens: 40,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 50,
      });
      const [row] = await f.logCount({ modelName: CLAUDE, isStream: true, promptTokens: 180 }, 1);
      expectRow(row, { model: CLAUDE, ...usage, quota: formatQuota(usage), stream: true, path: '/v1/messages' });
    });

    it('bills 1-hour cache writes at the creation ratio × 6/3.75, and keeps the counts a zero message_delta repeats (both modes)', async () => {
      // 30 input + 100 cache reads × 0.1 + 100 five-minute writes × 1.25 + 200 one-hour writes × 1.25 × 6/3.75 + 40 output × 3, × 2.
      const usage = { prompt: 430, completion: 40, cached: 100, created: 300 };
      const quota = Math.round((30 + 100 * 0.1 + 100 * 1.25 + 200 * 2 + 40 * 3) * 2);
      const split = {
        cache_creation_tokens_5m: 100,
        cache_creation_tokens_1h: 200,
        cache_creation_ratio_5m: 1.25,
        cache_creation_ratio_1h: 2,
      };
      f.up.script({ times: 1, raw: json(MESSAGE_CACHE_1H) });
      const { response } = await f
        .anthropic()
        .messages.create({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      const row = await f.row(response.headers.get('x-oneapi-request-id'));
      expectRow(row, { model: CLAUDE, ...usage, quota, stream: false, path: '/v1/messages' });
      expect(typeof row.other === 'string' ? JSON.parse(row.other) : row.other).toMatchObject(split);

      f.up.script({ times: 1, raw: sse(STREAM_CACHE_1H_ZERO_DELTA) });
      const message = await f
        .anthropic()
        .messages.stream({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage();
      expect(message.content).toEqual([{ type: 'text', text: 'Cached.' }]);
      const [streamed] = await f.logCount({ modelName: CLAUDE, isStream: true, promptTokens: 430 }, 1);
      expectRow(streamed, { model: CLAUDE, ...usage, quota, stream: true, path: '/v1/messages' });
      expect(typeof streamed.other === 'string' ? JSON.parse(streamed.other) : streamed.other).toMatchObject(split);
    });

    it("completes message_delta's usage from message_start as new-api does, so the SDK's final usage is whole", async () => {
      const relayed = async (fixture: string) => {
        f.up.script({ times: 1, raw: sse(fixture) });
        const stream = f.anthropic().messages.stream({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
        const deltas: Record<string, unknown>[] = [];
        stream.on('streamEvent', (event) => {
          if (event.type === 'message_delta') deltas.push(event as unknown as Record<string, unknown>);
        });
        const { response } = await stream.withResponse();
        const message = await stream.finalMessage();
        return { usage: message.usage, delta: deltas[0]!, requestId: response.headers.get('x-oneapi-request-id') };
      };

      // The delta repeats input and cache counts as 0: the SDK would overwrite message_start's with them.
      const zero = await relayed(STREAM_CACHE_1H_ZERO_DELTA);
      expect(zero.usage).toMatchObject({
        input_tokens: 30,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 300,
        output_tokens: 40,
      });
      // new-api takes the delta's own TTL split (0 and 0) and counts the writes it leaves out as 5-minute ones.
      expect(zero.delta.usage).toEqual({
        input_tokens: 30,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 300,
        cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 0 },
        output_tokens: 40,
      });
      // Billing still reads the stream's own counts: 1-hour writes stay 1-hour writes.
      const zeroRow = await f.row(zero.requestId);
      expect(zeroRow.promptTokens).toBe(430);
      expect(typeof zeroRow.other === 'string' ? JSON.parse(zeroRow.other) : zeroRow.other).toMatchObject({
        cache_creation_tokens_5m: 100,
        cache_creation_tokens_1h: 200,
      });

      // The delta leaves them out (Bedrock): they are added after its own fields, which stay as sent.
      const missing = await relayed(STREAM_THINKING_TOOL);
      expect(missing.delta).toEqual({
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: {
          output_tokens: 40,
          input_tokens: 30,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 50,
          cache_creation: { ephemeral_5m_input_tokens: 50 },
        },
      });
      expect(missing.usage).toMatchObject({ input_tokens: 30, cache_read_input_tokens: 100, cache_creation_input_tokens: 50 });
      const usage = { prompt: 180, completion: 40, cached: 100, created: 50 };
      expectRow(await f.row(missing.requestId), { model: CLAUDE, ...usage, quota: formatQuota(usage), stream: true, path: '/v1/messages' });

      // Pass-through (global, or the channel's pass_through_body_enabled) relays the delta as it came.
      const untouched = { output_tokens: 40 };
      await f.setOption('global.pass_through_request_enabled', true);
      try {
        expect((await relayed(STREAM_THINKING_TOOL)).delta.usage).toEqual(untouched);
      } finally {
        await f.setOption('global.pass_through_request_enabled', false);
      }
      const claude = (await f.root.get('/api/channel/?type=14')).body.data.items[0] as { id: number; setting: string };
      const put = (setting: string) => f.root.put('/api/channel/', { id: claude.id, setting });
      expect((await put(JSON.stringify({ pass_through_body_enabled: true }))).body.success).toBe(true);
      try {
        expect((await relayed(STREAM_THINKING_TOOL)).delta.usage).toEqual(untouched);
      } finally {
        expect((await put(claude.setting)).body.success).toBe(true);
      }
      expect((await relayed(STREAM_THINKING_TOOL)).delta.usage).toMatchObject({ input_tokens: 30 });
    });

    it('passes anthropic-beta on and adds claude.model_headers_settings', async () => {
      await f.setOption('claude.model_headers_settings', { [CLAUDE]: { 'anthropic-beta': ['output-128k-2025-02-19'] } });
      try {
        await f
          .anthropic()
          .messages.create(
            { model: CLAUDE, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
            { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } },
          );
        expect(f.up.requests[0]!.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31,output-128k-2025-02-19');
      } finally {
        await f.setOption('claude.model_headers_settings', {});
      }
    });

    it("answers provider errors in Anthropic's shape and refunds the reservation", async () => {
      const before = await f.quota(f.user.id);
      f.up.script({ times: 1, raw: { status: 529, ...json(ERROR_OVERLOADED) } });
      const error = await f
        .anthropic()
        .messages.create({ model: CLAUDE, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
      const { headers, error: body } = error as InstanceType<typeof Anthropic.APIError>;
      expect(relayError({ headers, body })).toMatchObject({
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
      });
      expect(await f.quota(f.user.id)).toBe(before);
    });

    it('fails a stream whose first event is an error, before anything reached the client', async () => {
      f.up.script({ times: 1, raw: sse(STREAM_ERROR_FIRST) });
      const error = await f
        .anthropic()
        .messages.stream({ model: CLAUDE, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      const { headers, error: body } = error as InstanceType<typeof Anthropic.APIError>;
      expect(relayError({ headers, body })).toMatchObject({ type: 'error', error: { message: 'Overloaded' } });
    });
  });

  describe('to an OpenAI channel (type 1): converted through OpenAI chat', () => {
    it('converts system, images, tool results and tools to OpenAI chat, and the answer back', async () => {
      const { data, response } = await f
        .anthropic()
        .messages.create({
          model: OPENAI,
          max_tokens: 100,
          system: [{ type: 'text', text: 'be brief' }],
          tools: TOOLS,
          tool_choice: { type: 'any' },
          stop_sequences: ['END'],
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'what is this?' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
              ],
            },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Paris' } }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
          ],
        })
        .withResponse();
      expect(data).toMatchObject({
        type: 'message',
        role: 'assistant',
        model: OPENAI,
        stop_reason: 'end_turn',
        content: [{ type: 'text', text: DEFAULT_REPLY }],
      });
      expect(data.usage).toMatchObject({ input_tokens: 10, output_tokens: 20 });
      const sent = f.up.requests[0]!;
      expect(sent.path).toBe('/v1/chat/completions');
      expect(sent.headers.authorization).toBe('Bearer openai-up-key');
      expect(sent.body).toMatchObject({
        model: OPENAI,
        max_tokens: 100,
        stop: ['END'],
        tool_choice: 'required',
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: TOOLS[0]!.input_schema } }],
        messages: [
          { role: 'system', content: 'be brief' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            ],
          },
          {
            role: 'assistant',
            tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
        ],
      });
      const usage = { prompt: 10, completion: 20 };
      expectRow(await f.row(response.headers.get('x-oneapi-request-id')), {
        model: OPENAI,
        ...usage,
        quota: formatQuota(usage),
        stream: false,
        conversion: ['anthropic', 'openai'],
        path: '/v1/messages',
      });
    });

    it('streams converted events message_start … message_stop with the same usage as non-stream', async () => {
      const stream = f.anthropic().messages.stream({ model: OPENAI, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
      const types: string[] = [];
      stream.on('streamEvent', (event) => types.push(event.type));
      const message = await stream.finalMessage();
      expect(message.content).toEqual([{ type: 'text', text: DEFAULT_REPLY }]);
      expect(message.usage.output_tokens).toBe(20);
      expect(types[0]).toBe('message_start');
      expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
      expect(f.up.requests[0]!.body.stream_options).toEqual({ include_usage: true });
      const [row] = await f.logCount({ modelName: OPENAI, isStream: true }, 1);
      const usage = { prompt: 10, completion: 20 };
      expectRow(row, {
        model: OPENAI,
        ...usage,
        quota: formatQuota(usage),
        stream: true,
        conversion: ['anthropic', 'openai'],
        path: '/v1/messages',
      });
    });

    it('turns OpenAI tool calls and cached tokens into tool_use blocks and cache reads (fixtures, both modes)', async () => {
      const usage = { prompt: 82, completion: 17, cached: 64 };
      f.up.script({ times: 1, raw: json(CHAT_TOOL_CALL) });
      const { data, response } = await f
        .anthropic()
        .messages.create({ model: OPENAI, max_tokens: 64, tools: TOOLS, messages: [{ role: 'user', content: 'weather?' }] })
        .withResponse();
      expect(data.stop_reason).toBe('tool_use');
      expect(data.content).toEqual([{ type: 'tool_use', id: 'call_abc123', name: 'get_weather', input: { location: 'Boston' } }]);
      expect(data.usage).toMatchObject({ input_tokens: 18, cache_read_input_tokens: 64, output_tokens: 17 });
      expectRow(await f.row(response.headers.get('x-oneapi-request-id')), {
        model: OPENAI,
        ...usage,
        quota: formatQuota(usage),
        stream: false,
        conversion: ['anthropic', 'openai'],
        path: '/v1/messages',
      });

      f.up.script({ times: 1, raw: sse(CHAT_STREAM_TOOL_CALL) });
      const message = await f
        .anthropic()
        .messages.stream({ model: OPENAI, max_tokens: 64, tools: TOOLS, messages: [{ role: 'user', content: 'weather?' }] })
        .finalMessage();
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content).toEqual([
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'call_abc123', name: 'get_weather', input: { location: 'Boston' } },
      ]);
      const [row] = await f.logCount({ modelName: OPENAI, isStream: true, promptTokens: 82 }, 1);
      expectRow(row, {
        model: OPENAI,
        ...usage,
        quota: formatQuota(usage),
        stream: true,
        conversion: ['anthropic', 'openai'],
        path: '/v1/messages',
      });
    });
  });

  it('reaches a Gemini channel (Anthropic → hub → Gemini), streamed and not, with the same usage', async () => {
    const usage = { prompt: 10, completion: 20 };
    const { data, response } = await f
      .anthropic()
      .messages.create({ model: GEMINI, max_tokens: 64, system: 'be brief', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(data.content).toEqual([{ type: 'text', text: DEFAULT_REPLY }]);
    expect(f.up.requests[0]).toMatchObject({
      path: `/v1beta/models/${GEMINI}:generateContent`,
      body: { systemInstruction: { parts: [{ text: 'be brief' }] }, generationConfig: { maxOutputTokens: 64 } },
    });
    const want = { model: GEMINI, ...usage, quota: formatQuota(usage), conversion: ['anthropic', 'gemini'], path: '/v1/messages' };
    expectRow(await f.row(response.headers.get('x-oneapi-request-id')), { ...want, stream: false });

    const message = await f
      .anthropic()
      .messages.stream({ model: GEMINI, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: DEFAULT_REPLY }]);
    expect(message.usage.output_tokens).toBe(20);
    expect(f.up.requests[1]!.path).toBe(`/v1beta/models/${GEMINI}:streamGenerateContent?alt=sse`);
    const [row] = await f.logCount({ modelName: GEMINI, isStream: true }, 1);
    expectRow(row, { ...want, stream: true });
  });

  describe('the route', () => {
    it('sends anthropic-version 2023-06-01 when the client sent none', async () => {
      const res = await f.gw
        .client()
        .raw('POST', '/v1/messages', JSON.stringify({ model: CLAUDE, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }), {
          'x-api-key': f.apiToken.key,
        });
      expect(res.status).toBe(200);
      expect(f.up.requests[0]!.headers['anthropic-version']).toBe('2023-06-01');
    });

    it('accepts the token as a Bearer header too', async () => {
      const message = await f
        .anthropic({ bearer: true })
        .messages.create({ model: CLAUDE, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
      expect(message.content[0]).toMatchObject({ text: DEFAULT_REPLY });
    });

    it("refuses bad input and bad keys with Anthropic's error shape", async () => {
      const client = f.gw.client();
      const missing = await client.raw('POST', '/v1/messages', JSON.stringify({ model: CLAUDE, max_tokens: 8 }), {
        'x-api-key': f.apiToken.key,
      });
      expect(missing.status).toBe(400);
      expect(relayError(missing)).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: field required' } });
      const badKey = await client.raw('POST', '/v1/messages', JSON.stringify({ model: CLAUDE, max_tokens: 8, messages: [] }), {
        'x-api-key': 'sk-nope',
      });
      expect(badKey.status).toBe(401);
      expect(badKey.body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
      const notJson = await client.raw('POST', '/v1/messages', '{oops', { 'x-api-key': f.apiToken.key });
      expect(notJson.status).toBe(400);
      expect(notJson.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(f.up.requests).toHaveLength(0);
    });
  });
});
