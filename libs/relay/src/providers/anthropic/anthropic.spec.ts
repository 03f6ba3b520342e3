import { describe, expect, it } from 'vitest';
import { settleQuota } from '../../pricing/billing-formulas.js';
import { SseEventReader } from '../sse-events.js';
import type { HubChunk, Json } from '../types.js';
import { anthropicCodec } from './index.js';

const settings = { get: () => undefined as never };
const sse = (events: unknown[]) => events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join('');

function decode(wire: string) {
  const decoder = anthropicCodec.streamDecoder('m');
  const reader = new SseEventReader();
  const chunks: HubChunk[] = [...reader.push(wire), ...reader.end()].flatMap((event) => decoder.decode(event));
  return { chunks, usage: decoder.usage() };
}

const start = (usage: object) => ({
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'm', usage },
});

describe('Anthropic answers: usage as billed', () => {
  it('keeps message_start input and cache counts when message_delta repeats them as 0 (new-api: only counts > 0 replace)', () => {
    const wire = sse([
      start({ input_tokens: 30, cache_read_input_tokens: 100, cache_creation_input_tokens: 50, output_tokens: 1 }),
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 40 },
      },
      { type: 'message_stop' },
    ]);
    expect(decode(wire).usage).toEqual({ promptTokens: 180, completionTokens: 40, cachedTokens: 100, cacheCreationTokens: 50 });
  });

  it('still takes counts message_delta reports above 0 (cumulative, never summed)', () => {
    const wire = sse([
      start({ input_tokens: 0, output_tokens: 1 }),
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { input_tokens: 12, output_tokens: 7 } },
    ]);
    expect(decode(wire).usage).toMatchObject({ promptTokens: 12, completionTokens: 7 });
  });

  it('reads the 1-hour share of cache writes, and bills it at the creation ratio × 6/3.75 (new-api CacheCreation1hRatio)', () => {
    const { usage } = anthropicCodec.responseToHub(
      {
        id: 'msg_1',
        type: 'message',
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 300,
          cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
          output_tokens: 20,
        },
      },
      'm',
    );
    expect(usage).toEqual({
      promptTokens: 310,
      completionTokens: 20,
      cachedTokens: 0,
      cacheCreationTokens: 300,
      cacheCreation1hTokens: 200,
    });
    const price = {
      usePrice: false,
      modelPrice: -1,
      modelRatio: 1,
      completionRatio: 1,
      cacheRatio: 0.1,
      createCacheRatio: 1.25,
      groupRatio: 1,
    };
    // 10 plain + 100 × 1.25 + 200 × 2 + 20 output
    expect(settleQuota(price, usage!, 500000)).toBe(10 + 125 + 400 + 20);
  });

  it('takes the split when it exceeds the total, and streams the split like the totals', () => {
    const wire = sse([
      start({ input_tokens: 5, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 60 }, output_tokens: 1 }),
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } },
    ]);
    expect(decode(wire).usage).toEqual({
      promptTokens: 65,
      completionTokens: 9,
      cachedTokens: 0,
      cacheCreationTokens: 60,
      cacheCreation1hTokens: 60,
    });
  });
});

describe('Anthropic streams to OpenAI chunks', () => {
  it("ignores a server tool's input deltas (no OpenAI tool call without id or name)", () => {
    const wire = sse([
      start({ input_tokens: 5, output_tokens: 1 }),
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"x"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
    ]);
    const calls = decode(wire).chunks.flatMap((c) => c.choices[0].delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'toolu_1', type: 'function', function: { name: 'get', arguments: '' } },
      { index: 0, function: { arguments: '{"a":1}' } },
    ]);
  });

  it('maps model_context_window_exceeded to length', () => {
    const { response } = anthropicCodec.responseToHub(
      { id: 'msg_1', content: [], stop_reason: 'model_context_window_exceeded', usage: { input_tokens: 1, output_tokens: 1 } },
      'm',
    );
    expect(response.choices[0].finish_reason).toBe('length');
  });
});

describe('OpenAI chat requests to Anthropic Messages', () => {
  const tools = [{ type: 'function', function: { name: 'w', parameters: { type: 'object', properties: {} } } }];
  const build = (hub: Record<string, unknown>): Json =>
    anthropicCodec.requestFromHub({ messages: [{ role: 'user', content: 'hi' }], ...hub }, 'm', settings);

  it('never puts disable_parallel_tool_use on tool_choice none (Anthropic refuses extra fields there)', () => {
    expect(build({ tools, tool_choice: 'none', parallel_tool_calls: false }).tool_choice).toEqual({ type: 'none' });
  });

  it('keeps parallel_tool_calls false without a tool_choice, as auto (new-api mapToolChoice)', () => {
    expect(build({ tools, parallel_tool_calls: false }).tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(build({ tools, tool_choice: 'required', parallel_tool_calls: false }).tool_choice).toEqual({
      type: 'any',
      disable_parallel_tool_use: true,
    });
    expect(build({ parallel_tool_calls: false }).tool_choice).toBeUndefined();
  });

  it("uses new-api's thinking budgets and always leaves max_tokens room for the answer", () => {
    const high = build({ reasoning_effort: 'high' });
    expect(high).toMatchObject({ max_tokens: 8192, thinking: { type: 'enabled', budget_tokens: 4096 } });
    expect(build({ reasoning_effort: 'low', max_tokens: 9000 }).thinking).toEqual({ type: 'enabled', budget_tokens: 1280 });
    expect(build({ reasoning_effort: 'medium', max_tokens: 9000 }).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    for (const maxTokens of [500, 1500, 2500, 4500, 5000, 8192]) {
      const body = build({ reasoning_effort: 'high', max_tokens: maxTokens });
      expect(body.thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
      expect(body.max_tokens - body.thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
    }
    expect(build({ reasoning: { max_tokens: 3000 }, max_tokens: 9000 }).thinking).toEqual({ type: 'enabled', budget_tokens: 3000 });
    const sampled = build({ reasoning_effort: 'low', temperature: 0.2, top_k: 5, top_p: 0.5 });
    expect([sampled.temperature, sampled.top_k, sampled.top_p]).toEqual([undefined, undefined, undefined]);
  });

  it('sends a PDF as a document block and drops empty text parts', () => {
    const body = build({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '' },
            { type: 'text', text: 'summarise' },
            { type: 'image_url', image_url: { url: 'data:application/pdf;base64,JVBERi0=' } },
            { type: 'file', file: { filename: 'a.pdf', file_data: 'JVBERi0x' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0y' } },
          ],
        },
      ],
    });
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'summarise' },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0y' } },
    ]);
  });
});

describe('OpenAI chunks to Anthropic events', () => {
  const chunk = (delta: Json, finish: string | null = null) => ({
    id: 'chatcmpl-1',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const blocksOf = (out: string) =>
    out
      .split('\n\n')
      .filter((e) => e.startsWith('event: content_block_'))
      .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));

  it("keeps tool calls apart when the upstream sends no index (new-api: the call's position, or its own id)", () => {
    const encoder = anthropicCodec.streamEncoder({ model: 'm', promptTokens: 3, includeUsage: false });
    let out = encoder.encode(
      chunk({
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
          { id: 'b', type: 'function', function: { name: 'g', arguments: '{"y":2}' } },
        ],
      }),
    );
    out += encoder.encode(chunk({ tool_calls: [{ id: 'c', type: 'function', function: { name: 'h', arguments: '{"z"' } }] }));
    out += encoder.encode(chunk({ tool_calls: [{ function: { arguments: ':3}' } }] }, 'tool_calls'));
    out += encoder.end({ promptTokens: 3, completionTokens: 4, cachedTokens: 0 });
    const starts = blocksOf(out).filter((e) => e.type === 'content_block_start');
    expect(starts.map((e) => [e.index, e.content_block.id, e.content_block.name])).toEqual([
      [0, 'a', 'f'],
      [1, 'b', 'g'],
      [2, 'c', 'h'],
    ]);
    const args = blocksOf(out)
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => [e.index, e.delta.partial_json]);
    expect(args).toEqual([
      [0, '{"x":1}'],
      [1, '{"y":2}'],
      [2, '{"z"'],
      [2, ':3}'],
    ]);
    expect(out).toContain('"stop_reason":"tool_use"');
  });
});
