import { describe, expect, it } from 'vitest';
import { addUsage, NO_USAGE, readRealtimeUsage, readResponseDone } from './realtime-usage.js';

const done = (usage: unknown) => Buffer.from(JSON.stringify({ type: 'response.done', event_id: 'e', response: { id: 'r', usage } }));

describe('Realtime usage', () => {
  it("reads response.done's usage with its text, audio and cached parts", () => {
    const usage = {
      total_tokens: 1300,
      input_tokens: 1000,
      output_tokens: 300,
      input_token_details: {
        text_tokens: 400,
        audio_tokens: 600,
        cached_tokens: 500,
        cached_tokens_details: { text_tokens: 200, audio_tokens: 300 },
      },
      output_token_details: { text_tokens: 100, audio_tokens: 200 },
    };
    expect(readResponseDone(done(usage))).toEqual({
      usage: {
        inputTokens: 1000,
        outputTokens: 300,
        inputAudioTokens: 600,
        outputAudioTokens: 200,
        cachedTokens: 500,
        cachedAudioTokens: 300,
      },
    });
  });

  it('clamps every part into its total, so a provider cannot inflate or negate a charge', () => {
    expect(
      readRealtimeUsage({
        input_tokens: 10,
        output_tokens: '5',
        input_token_details: { audio_tokens: 50, cached_tokens: -3, cached_tokens_details: { audio_tokens: 9 } },
        output_token_details: { audio_tokens: 1e12 },
      }),
    ).toEqual({ inputTokens: 10, outputTokens: 5, inputAudioTokens: 10, outputAudioTokens: 5, cachedTokens: 0, cachedAudioTokens: 0 });
    expect(readRealtimeUsage({ input_tokens: 2e9, output_tokens: 0 })?.inputTokens).toBe(100_000_000);
  });

  it('finds nothing in other events or malformed frames', () => {
    expect(readResponseDone(Buffer.from('{"type":"response.audio.delta","delta":"AAAA"}'))).toBeUndefined();
    expect(readResponseDone(Buffer.from('{"type":"response.done", oops'))).toBeUndefined();
    expect(readResponseDone(Buffer.from('{"type":"response.text.delta","delta":"\\"response.done\\""}'))).toBeUndefined();
    expect(readRealtimeUsage([1, 2])).toBeUndefined();
  });

  it('tells a response.done without usage (to be counted locally) from one whose usage is zero', () => {
    expect(readResponseDone(done(null))).toEqual({ usage: undefined });
    expect(readResponseDone(Buffer.from('{"type":"response.done","response":{"id":"r"}}'))).toEqual({ usage: undefined });
    expect(readResponseDone(done({ input_tokens: 0, output_tokens: 0 }))).toEqual({ usage: NO_USAGE });
  });

  it('adds two responses', () => {
    const one = readRealtimeUsage({ input_tokens: 3, output_tokens: 4, input_token_details: { audio_tokens: 1 } })!;
    expect(addUsage(one, one)).toEqual({
      inputTokens: 6,
      outputTokens: 8,
      inputAudioTokens: 2,
      outputAudioTokens: 0,
      cachedTokens: 0,
      cachedAudioTokens: 0,
    });
  });
});
