import { describe, expect, it } from 'vitest';
import { FormatStream } from '../../stream/format-stream.js';
import { anthropicCodec } from './index.js';
import { completeMessageDeltaUsage } from './message-delta-usage.js';

const sse = (events: object[]) => events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
const start = (usage: object) => ({
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'm', usage },
});
const stop = { type: 'message_stop' };

/** A same-format stream relayed through FormatStream (rewrite on unless told), in chunks of `size` bytes. */
function relay(wire: string, options: { rewrite?: boolean; size?: number } = {}) {
  const stream = new FormatStream(anthropicCodec.streamDecoder('m'), undefined, 5, () => 0, undefined, options.rewrite ?? true);
  const bytes = Buffer.from(wire);
  const size = options.size ?? bytes.length;
  let out = '';
  for (let at = 0; at < bytes.length; at += size) out += stream.push(bytes.subarray(at, at + size));
  out += stream.end();
  return { out, usage: stream.finalUsage().usage };
}

function deltaOf(out: string): any {
  const line = out.split('\n').find((l) => l.startsWith('data: ') && l.includes('"message_delta"'));
  return JSON.parse(line!.slice('data: '.length));
}

describe('completeMessageDeltaUsage (new-api buildMessageDeltaPatchUsage + patchClaudeMessageDeltaUsageData)', () => {
  it('fills input and cache counts the delta leaves out, and keeps every other field', () => {
    expect(
      completeMessageDeltaUsage(
        { output_tokens: 53, server_tool_use: { web_search_requests: 1 } },
        {
          input_tokens: 100,
          cache_read_input_tokens: 30,
          cache_creation_input_tokens: 50,
        },
      ),
    ).toEqual({
      output_tokens: 53,
      server_tool_use: { web_search_requests: 1 },
      input_tokens: 100,
      cache_read_input_tokens: 30,
      cache_creation_input_tokens: 50,
      // No TTL split seen: the writes count as 5-minute writes.
      cache_creation: { ephemeral_5m_input_tokens: 50 },
    });
  });

  it('keeps counts the delta sends above 0, fills the zeros, and adds nothing for a count never seen above 0', () => {
    const usage = completeMessageDeltaUsage(
      { output_tokens: 53, input_tokens: 9, cache_read_input_tokens: 0 },
      { input_tokens: 100, cache_read_input_tokens: 30, cache_creation_input_tokens: 0 },
    );
    expect(usage).toEqual({ output_tokens: 53, input_tokens: 9, cache_read_input_tokens: 30 });
  });

  it("takes the seen TTL split when the delta has none, and the delta's own when it has one", () => {
    const seen = {
      input_tokens: 30,
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
    };
    expect(completeMessageDeltaUsage({ output_tokens: 40 }, seen)).toMatchObject({
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
    });
    // The delta's split (zeros) is the one used: what it does not account for counts as 5-minute writes.
    expect(
      completeMessageDeltaUsage(
        { cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, output_tokens: 40 },
        seen,
      ),
    ).toMatchObject({ cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 0 } });
  });

  it('is undefined when the delta already carries everything, or nothing was seen', () => {
    expect(completeMessageDeltaUsage({ input_tokens: 9, output_tokens: 1 }, { input_tokens: 100 })).toBeUndefined();
    expect(completeMessageDeltaUsage({ output_tokens: 1 }, {})).toBeUndefined();
  });
});

describe('Claude streams relayed to Claude clients: message_delta carries the whole usage', () => {
  const wire = sse([
    start({ input_tokens: 30, cache_read_input_tokens: 100, cache_creation_input_tokens: 50, output_tokens: 1 }),
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
    { type: 'content_block_stop', index: 0 },
    {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 40 },
      vendor: { trace: 't1' },
    },
    stop,
  ]);

  it('rewrites only message_delta, whatever the chunking, and bills the same usage as without', () => {
    const whole = relay(wire);
    expect(whole.out.slice(0, whole.out.indexOf('event: message_delta'))).toBe(wire.slice(0, wire.indexOf('event: message_delta')));
    expect(whole.out.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    expect(deltaOf(whole.out)).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: {
        output_tokens: 40,
        input_tokens: 30,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 50,
        cache_creation: { ephemeral_5m_input_tokens: 50 },
      },
      vendor: { trace: 't1' },
    });
    for (const size of [1, 7, 64]) expect(relay(wire, { size }).out, `chunks of ${size}`).toBe(whole.out);
    expect(whole.usage).toEqual({ promptTokens: 180, completionTokens: 40, cachedTokens: 100, cacheCreationTokens: 50 });
  });

  it('relays the bytes as they came when rewriting is off (pass-through) or nothing is missing', () => {
    expect(relay(wire, { rewrite: false, size: 5 }).out).toBe(wire);
    const complete = sse([
      start({ input_tokens: 30, output_tokens: 1 }),
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { input_tokens: 30, output_tokens: 4 } },
      stop,
    ]);
    expect(relay(complete, { size: 3 }).out).toBe(complete);
  });

  it('rewrites message_delta in framed streams (Bedrock event-stream) re-sent as SSE too', () => {
    const events = [
      start({ input_tokens: 30, output_tokens: 1 }),
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } },
      stop,
    ].map((e) => ({ event: e.type, data: JSON.stringify(e) }));
    const framer = { push: () => events, end: () => [] };
    const relayed = (rewrite: boolean) => {
      const stream = new FormatStream(anthropicCodec.streamDecoder('m'), undefined, 5, () => 0, framer, rewrite);
      return stream.push(Buffer.from('frames')) + stream.end();
    };
    expect(deltaOf(relayed(true)).usage).toEqual({ output_tokens: 4, input_tokens: 30 });
    expect(deltaOf(relayed(false)).usage).toEqual({ output_tokens: 4 });
  });

  it('keeps CRLF line ends and comment lines around a rewritten event', () => {
    const crlf = `${sse([start({ input_tokens: 12, output_tokens: 1 })])}: keep-alive\r\nevent: message_delta\r\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}\r\n\r\n`;
    const { out } = relay(crlf, { size: 4 });
    expect(out).toContain(': keep-alive\r\nevent: message_delta\r\ndata: {"type":"message_delta"');
    expect(out.endsWith('"usage":{"output_tokens":3,"input_tokens":12}}\r\n\r\n')).toBe(true);
  });
});
