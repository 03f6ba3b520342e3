import { describe, expect, it } from 'vitest';
import { base64Bytes, eventType, topLevelString } from './realtime-frames.js';
import { RealtimeLocalCount } from './realtime-local-count.js';

const frame = (event: unknown) => Buffer.from(JSON.stringify(event));
/** `bytes` of silence as a base64 payload. */
const audio = (bytes: number) => Buffer.alloc(bytes).toString('base64');

/** A counter whose token is one character, and the texts it was asked to count. */
function counting() {
  const asked: string[] = [];
  const local = new RealtimeLocalCount((text) => {
    asked.push(text);
    return text.length;
  });
  return { local, asked };
}

describe('Realtime frames', () => {
  it('finds a top-level string without parsing, stepping over nested objects, arrays and escaped quotes', () => {
    const text = Buffer.from(
      '{"item":{"type":"message","content":[{"type":"x"}]},"note":"a \\"type\\":\\"b\\"", "type" : "conversation.item.create"}',
    );
    expect(eventType(text)).toBe('conversation.item.create');
    expect(eventType(Buffer.from('{"\\u0074ype":"response.audio.delta"}'))).toBe('response.audio.delta');
    expect(eventType(Buffer.from('{"type":5,"x":"type"}'))).toBeUndefined();
    expect(eventType(Buffer.from('[{"type":"a"}]'))).toBeUndefined();
    expect(eventType(Buffer.from('not JSON'))).toBeUndefined();
    expect(eventType(Buffer.from('{"type":"unterminated'))).toBeUndefined();
  });

  it('counts the bytes of a base64 value from its length, padding and escaped slashes included', () => {
    for (const bytes of [0, 1, 2, 3, 4800, 4801]) {
      const f = frame({ type: 'response.audio.delta', delta: audio(bytes) });
      expect(base64Bytes(f, topLevelString(f, 'delta')!)).toBe(bytes);
    }
    const escaped = Buffer.from('{"delta":"ab\\/+"}');
    expect(base64Bytes(escaped, topLevelString(escaped, 'delta')!)).toBe(3);
  });
});

describe('RealtimeLocalCount', () => {
  it("counts new-api's input: instructions and tools, message text, appended audio", () => {
    const { local } = counting();
    local.client(frame({ type: 'session.update', session: { instructions: 'Be brief', tools: [{ name: 'f' }] } }));
    local.client(
      frame({
        type: 'conversation.item.create',
        item: {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'Hi' },
            { type: 'input_audio', audio: 'AAAA' },
          ],
        },
      }),
    );
    // Two seconds of PCM16 at 24 kHz: 2 × 250/9 tokens, rounded down.
    local.client(frame({ type: 'input_audio_buffer.append', audio: audio(96_000) }));
    local.client(frame({ type: 'response.create', response: { instructions: 'not counted' } }));
    const tools = 8 + JSON.stringify({ name: 'f' }).length;
    expect(local.take()).toEqual({
      inputTokens: 8 + tools + 2 + 55,
      outputTokens: 0,
      inputAudioTokens: 55,
      outputAudioTokens: 0,
      cachedTokens: 0,
      cachedAudioTokens: 0,
    });
    expect(local.take()).toBeUndefined();
  });

  it('counts the text and audio deltas the provider sent, the text only when the count is taken', () => {
    const { local, asked } = counting();
    local.upstream(frame({ type: 'response.created', response: {} }));
    local.upstream(frame({ type: 'response.text.delta', delta: 'Hel' }));
    local.upstream(frame({ type: 'response.audio_transcript.delta', delta: 'lo "x"' }));
    local.upstream(frame({ type: 'response.function_call_arguments.delta', delta: '{}' }));
    // One second of PCM16 out: 125/9 tokens, rounded down once for the whole response.
    local.upstream(frame({ type: 'response.audio.delta', delta: audio(24_000) }));
    local.upstream(frame({ type: 'response.output_audio.delta', delta: audio(24_000) }));
    expect(asked).toEqual([]);
    expect(local.take()).toMatchObject({ inputTokens: 0, outputTokens: 11 + 13, outputAudioTokens: 13 });
    expect(asked).toEqual(['Hello "x"{}']);
  });

  it('counts audio in the format the provider confirmed, beta or GA', () => {
    const { local } = counting();
    local.upstream(frame({ type: 'session.created', session: { input_audio_format: 'g711_ulaw', output_audio_format: 'pcm16' } }));
    // One second of G.711 (8000 bytes) in, one of PCM16 out.
    local.client(frame({ type: 'input_audio_buffer.append', audio: audio(8000) }));
    local.upstream(frame({ type: 'response.audio.delta', delta: audio(48_000) }));
    expect(local.take()).toMatchObject({ inputAudioTokens: 27, outputAudioTokens: 13 });
    local.upstream(frame({ type: 'session.updated', session: { audio: { input: { format: { type: 'audio/pcm', rate: 24000 } } } } }));
    local.client(frame({ type: 'input_audio_buffer.append', audio: audio(48_000) }));
    expect(local.take()).toMatchObject({ inputAudioTokens: 27 });
  });

  it('forgets what reset drops, and ignores what is not a counted event', () => {
    const { local, asked } = counting();
    local.upstream(frame({ type: 'response.text.delta', delta: 'dropped' }));
    local.client(frame({ type: 'input_audio_buffer.append', audio: audio(96_000) }));
    local.reset();
    local.client(Buffer.from('this is not JSON'));
    local.upstream(frame({ type: 'error', error: { message: 'x' } }));
    local.upstream(frame({ type: 'response.done', response: { usage: null } }));
    expect(local.take()).toBeUndefined();
    expect(asked).toEqual([]);
  });
});
