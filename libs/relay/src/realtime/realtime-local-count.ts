import type { AudioUsage } from '../pricing/billing-formulas.js';
import { base64Bytes, eventType, stringAt, topLevelString } from './realtime-frames.js';

/** Upper bound for one counted part, as for a provider's usage (realtime-usage.ts). */
const MAX_TOKENS_PER_FIELD = 100_000_000;
/** new-api's fixed cost of one tool. */
const PER_TOOL = 8;
/** Output text waits to be counted until the count is needed; past this many characters it is counted at once. */
const PENDING_TEXT_CHARS = 64 * 1024;

/**
 * Audio time is kept in ticks of 1/48000 s, so that bytes of any format add up exactly: PCM16 at 24 kHz is one
 * tick a byte, G.711 (and new-api's fallback for a format it does not know) 8 kHz at one byte a sample, six.
 */
const PCM16_TICKS_PER_BYTE = 1;
const G711_TICKS_PER_BYTE = 6;
/**
 * new-api's audio tokens: input seconds / 60 × 100 / 0.06, output seconds / 60 × 200 / 0.24 (service/token_counter.go
 * CountAudioTokenInput / CountAudioTokenOutput), that is 250/9 and 125/9 tokens a second: one token per 1728 and
 * per 3456 ticks.
 */
const INPUT_TICKS_PER_TOKEN = 1728;
const OUTPUT_TICKS_PER_TOKEN = 3456;

/** Output events whose `delta` is text the client received. */
const TEXT_DELTAS = new Set([
  'response.text.delta',
  'response.output_text.delta',
  'response.audio_transcript.delta',
  'response.output_audio_transcript.delta',
  'response.function_call_arguments.delta',
]);
/** Output events whose `delta` is base64 audio. */
const AUDIO_DELTAS = new Set(['response.audio.delta', 'response.output_audio.delta']);
/** Text parts of a `conversation.item.create` message. */
const TEXT_PARTS = new Set(['input_text', 'text', 'output_text']);

type Json = Record<string, unknown>;
const objectAt = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

function parse(frame: Buffer): Json | undefined {
  try {
    return objectAt(JSON.parse(frame.toString('utf8')));
  } catch {
    return undefined;
  }
}

/** Ticks per byte of a session's audio format: the beta name (`pcm16`, `g711_ulaw`) or GA's `{type: 'audio/pcm'}`. */
function ticksPerByte(format: unknown): number | undefined {
  const name = typeof format === 'string' ? format : objectAt(format)?.type;
  if (typeof name !== 'string' || name === '') return undefined;
  return name === 'pcm16' || name === 'audio/pcm' ? PCM16_TICKS_PER_BYTE : G711_TICKS_PER_BYTE;
}

function clamp(tokens: number): number {
  return Math.min(tokens, MAX_TOKENS_PER_FIELD);
}

/**
 * What a Realtime session used since its last `response.done`, counted on the gateway as the frames pass, the
 * way new-api counts its `localUsage` (relay/channel/openai/relay_realtime.go, service/token_counter.go
 * CountTokenRealtime): input is the client's session instructions and tools, the text of the messages it adds,
 * and the audio it appends; output is the text, transcript, function-argument and audio deltas the provider
 * sent. Audio is counted by duration in the session's format, text with the gateway's token counter.
 *
 * Only the frame's top-level `type` and the one string that counts are located in the bytes; the few control
 * events that carry structure (`session.update`, `conversation.item.create`, `session.created`/`updated`) are
 * parsed. Output text is counted only when the count is needed, which it is not when `response.done` brings the
 * provider's usage.
 */
export class RealtimeLocalCount {
  private inputTextTokens = 0;
  private inputAudioTicks = 0;
  private outputTextTokens = 0;
  private outputText = '';
  private outputAudioTicks = 0;
  private inputTicksPerByte = PCM16_TICKS_PER_BYTE;
  private outputTicksPerByte = PCM16_TICKS_PER_BYTE;

  constructor(private readonly countText: (text: string) => number) {}

  /** A text frame the client sent. */
  client(frame: Buffer): void {
    const type = eventType(frame);
    if (type === 'input_audio_buffer.append') {
      const audio = topLevelString(frame, 'audio');
      if (audio) this.inputAudioTicks += base64Bytes(frame, audio) * this.inputTicksPerByte;
    } else if (type === 'session.update') {
      this.sessionUpdate(objectAt(parse(frame)?.session));
    } else if (type === 'conversation.item.create') {
      this.itemCreate(objectAt(parse(frame)?.item));
    }
  }

  /** A text frame of the provider's, as it was passed to the client. */
  upstream(frame: Buffer): void {
    const type = eventType(frame);
    if (type === undefined) return;
    if (AUDIO_DELTAS.has(type)) {
      const delta = topLevelString(frame, 'delta');
      if (delta) this.outputAudioTicks += base64Bytes(frame, delta) * this.outputTicksPerByte;
    } else if (TEXT_DELTAS.has(type)) {
      const delta = topLevelString(frame, 'delta');
      if (delta) this.addOutputText(stringAt(frame, delta));
    } else if (type === 'session.created' || type === 'session.updated') {
      this.audioFormats(objectAt(parse(frame)?.session));
    }
  }

  /** The usage counted so far (undefined when nothing was), and a fresh count from here. */
  take(): AudioUsage | undefined {
    this.flushOutputText();
    const inputAudio = clamp(Math.floor(this.inputAudioTicks / INPUT_TICKS_PER_TOKEN));
    const outputAudio = clamp(Math.floor(this.outputAudioTicks / OUTPUT_TICKS_PER_TOKEN));
    const inputText = clamp(this.inputTextTokens);
    const outputText = clamp(this.outputTextTokens);
    this.reset();
    if (inputAudio + outputAudio + inputText + outputText === 0) return undefined;
    return {
      inputTokens: inputText + inputAudio,
      outputTokens: outputText + outputAudio,
      inputAudioTokens: inputAudio,
      outputAudioTokens: outputAudio,
      cachedTokens: 0,
      cachedAudioTokens: 0,
    };
  }

  /** Drops the count: the provider's usage for the same span replaces it. */
  reset(): void {
    this.inputTextTokens = 0;
    this.inputAudioTicks = 0;
    this.outputTextTokens = 0;
    this.outputText = '';
    this.outputAudioTicks = 0;
  }

  private sessionUpdate(session: Json | undefined): void {
    if (!session) return;
    if (typeof session.instructions === 'string') this.inputTextTokens += this.countText(session.instructions);
    if (Array.isArray(session.tools)) {
      for (const tool of session.tools) this.inputTextTokens += PER_TOOL + this.countText(JSON.stringify(tool) ?? '');
    }
  }

  private itemCreate(item: Json | undefined): void {
    if (item?.type !== 'message' || !Array.isArray(item.content)) return;
    for (const part of item.content) {
      const content = objectAt(part);
      if (content && TEXT_PARTS.has(content.type as string) && typeof content.text === 'string')
        this.inputTextTokens += this.countText(content.text);
    }
  }

  /** new-api reads the formats from the provider's `session.created` / `session.updated`; PCM16 until then. */
  private audioFormats(session: Json | undefined): void {
    if (!session) return;
    const audio = objectAt(session.audio);
    this.inputTicksPerByte =
      ticksPerByte(session.input_audio_format) ?? ticksPerByte(objectAt(audio?.input)?.format) ?? this.inputTicksPerByte;
    this.outputTicksPerByte =
      ticksPerByte(session.output_audio_format) ?? ticksPerByte(objectAt(audio?.output)?.format) ?? this.outputTicksPerByte;
  }

  private addOutputText(text: string): void {
    this.outputText += text;
    if (this.outputText.length > PENDING_TEXT_CHARS) this.flushOutputText();
  }

  private flushOutputText(): void {
    if (this.outputText) this.outputTextTokens += this.countText(this.outputText);
    this.outputText = '';
  }
}
