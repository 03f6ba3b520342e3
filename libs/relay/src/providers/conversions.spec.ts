import { describe, expect, it } from 'vitest';
import { STREAM_THINKING_TOOL } from '../../../../test/fixtures/relay-formats/anthropic.js';
import { STREAM_TEXT } from '../../../../test/fixtures/relay-formats/gemini.js';
import { FormatStream } from '../stream/format-stream.js';
import { anthropicCodec } from './anthropic/index.js';
import { geminiCodec } from './gemini/index.js';
import { openAiCodec } from './openai/codec.js';
import { SseEventReader } from './sse-events.js';
import type { FormatCodec, HubChunk } from './types.js';

const settings = { get: () => undefined as never };
const countText = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Runs a provider's wire stream through decoder → encoder (one byte at a time: no event boundary is assumed). */
function convert(wire: string, from: FormatCodec, to: FormatCodec) {
  const stream = new FormatStream(
    from.streamDecoder('m'),
    to.streamEncoder({ model: 'm', promptTokens: 7, includeUsage: true }),
    7,
    countText,
  );
  let out = '';
  for (const byte of Buffer.from(wire)) out += stream.push(Buffer.from([byte]));
  out += stream.end();
  return { out, usage: stream.finalUsage() };
}

function decodeAll(codec: FormatCodec, wire: string): HubChunk[] {
  const decoder = codec.streamDecoder('m');
  const reader = new SseEventReader();
  return [...reader.push(wire), ...reader.end()].flatMap((event) => decoder.decode(event));
}

describe('stream conversions', () => {
  it('reads Anthropic usage once (input + cache read + cache write; output from message_delta)', () => {
    const { usage } = convert(STREAM_THINKING_TOOL, anthropicCodec, openAiCodec);
    expect(usage).toEqual({ usage: { promptTokens: 180, completionTokens: 40, cachedTokens: 100, cacheCreationTokens: 50 }, local: false });
  });

  it('takes the last cumulative Gemini usage, never the sum of chunks', () => {
    const { usage } = convert(STREAM_TEXT, geminiCodec, openAiCodec);
    expect(usage.usage).toEqual({ promptTokens: 120, completionTokens: 38, cachedTokens: 20 });
  });

  it('round-trips Anthropic → hub → Anthropic with the same blocks, stop reason and usage', () => {
    const { out } = convert(STREAM_THINKING_TOOL, anthropicCodec, anthropicCodec);
    const events = decodeAll(anthropicCodec, out);
    const text = events.map((c) => c.choices[0].delta.content ?? '').join('');
    const reasoning = events.map((c) => c.choices[0].delta.reasoning_content ?? '').join('');
    const args = events.map((c) => c.choices[0].delta.tool_calls?.[0]?.function?.arguments ?? '').join('');
    expect({ text, reasoning, args }).toEqual({
      text: "I'll check the weather.",
      reasoning: 'The user wants weather.',
      args: '{"location": "San Francisco, CA", "unit": "celsius"}',
    });
    expect(events.at(-1)!.choices[0].finish_reason).toBe('tool_calls');
    expect(out).toMatch(
      /event: message_delta\ndata: .*"stop_reason":"tool_use".*"cache_read_input_tokens":100,"cache_creation_input_tokens":50/,
    );
    expect(out.trimEnd().endsWith('event: message_stop\ndata: {"type":"message_stop"}')).toBe(true);
  });

  it('writes Gemini chunks for a Claude stream: tool calls whole at the end with the usage', () => {
    const { out } = convert(STREAM_THINKING_TOOL, anthropicCodec, geminiCodec);
    const frames = out
      .split('\r\n\r\n')
      .filter(Boolean)
      .map((f) => JSON.parse(f.slice(6)));
    expect(frames.at(-1)).toMatchObject({
      candidates: [
        {
          content: { parts: [{ functionCall: { name: 'get_weather', args: { location: 'San Francisco, CA', unit: 'celsius' } } }] },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { promptTokenCount: 180, candidatesTokenCount: 40, cachedContentTokenCount: 100 },
    });
  });

  it('counts locally when a provider stream carries no usage', () => {
    const wire = 'data: {"candidates":[{"content":{"parts":[{"text":"one two three"}]},"finishReason":"STOP"}]}\r\n\r\n';
    expect(convert(wire, geminiCodec, openAiCodec).usage).toEqual({
      usage: { promptTokens: 7, completionTokens: 3, cachedTokens: 0 },
      local: true,
    });
  });

  it('surfaces an in-stream error event as a failure', () => {
    expect(() =>
      convert(
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        anthropicCodec,
        openAiCodec,
      ),
    ).toThrow('Overloaded');
  });
});

describe('request conversions', () => {
  it('merges consecutive tool results into one Anthropic user turn and keeps roles alternating', () => {
    const body = anthropicCodec.requestFromHub(
      {
        messages: [
          { role: 'user', content: 'weather in two places?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'w', arguments: '{"p":1}' } },
              { id: 'b', type: 'function', function: { name: 'w', arguments: 'not json' } },
            ],
          },
          { role: 'tool', tool_call_id: 'a', content: 'sun' },
          { role: 'tool', tool_call_id: 'b', content: 'rain' },
        ],
      },
      'm',
      settings,
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather in two places?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'w', input: { p: 1 } },
          { type: 'tool_use', id: 'b', name: 'w', input: { raw: 'not json' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'sun' },
          { type: 'tool_result', tool_use_id: 'b', content: 'rain' },
        ],
      },
    ]);
    expect(body.max_tokens).toBe(8192);
  });

  it('pairs Gemini function responses with their calls by name and order', () => {
    const hub = geminiCodec.requestToHub(
      {
        contents: [
          { role: 'model', parts: [{ functionCall: { name: 'w', args: {} } }, { functionCall: { name: 'w', args: { x: 1 } } }] },
          {
            role: 'user',
            parts: [{ functionResponse: { name: 'w', response: { r: 1 } } }, { functionResponse: { name: 'w', response: { r: 2 } } }],
          },
        ],
      },
      'm',
      false,
    );
    const ids = hub.messages[0].tool_calls.map((c: { id: string }) => c.id);
    expect(hub.messages.slice(1).map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(ids);
    expect(new Set(ids).size).toBe(2);
  });

  it('passes converted thinking to OpenAI channels as reasoning_effort only for reasoning models', () => {
    const hub = anthropicCodec.requestToHub(
      { messages: [], max_tokens: 9000, thinking: { type: 'enabled', budget_tokens: 8000 } },
      'm',
      false,
    );
    expect(hub.reasoning_effort).toBe('medium');
    expect(openAiCodec.requestFromHub(hub, 'o4-mini', settings).reasoning_effort).toBe('medium');
    expect(openAiCodec.requestFromHub(hub, 'gpt-4o', settings).reasoning_effort).toBeUndefined();
  });

  it('never throws on malformed parts: unknown blocks are dropped', () => {
    expect(() =>
      anthropicCodec.requestToHub(
        { messages: [null, 3, { role: 'user', content: [null, { type: 'image' }, { type: 'mystery' }] }], system: 5 },
        'm',
        false,
      ),
    ).not.toThrow();
    expect(() => geminiCodec.requestToHub({ contents: [{ parts: 'x' }, null], tools: [null] }, 'm', true)).not.toThrow();
  });
});
