import { StringDecoder } from 'node:string_decoder';
import { SseEventReader } from '../providers/sse-events.js';
import type { HubChunk, HubResponse, SseEvent, StreamDecoder, StreamEncoder, StreamFramer } from '../providers/types.js';
import { DeliveredTokens } from './delivered-tokens.js';
import { EventSplice } from './event-splice.js';
import type { Usage } from './usage.js';

/** Delivered text kept for a local count is counted and dropped past this size (bounded memory per stream). */
const MAX_KEPT_CHARS = 32 * 1024;

/**
 * A provider's stream on its way to a client of another format (decoder → hub chunks → encoder), or of the
 * same format (bytes passed through untouched, the decoder watching for usage and, when asked to, rewriting
 * the events it names: Claude's message_delta usage). Same push/end contract as the OpenAI SseTracker, so
 * relayStream serves both.
 */
export class FormatStream {
  private readonly reader = new SseEventReader();
  private readonly text = new StringDecoder('utf8');
  private kept = '';
  /** Completion tokens of the text already counted and dropped. */
  private readonly counted: DeliveredTokens;
  /** Same format with rewriting on and a decoder that rewrites: the events it names are held and rewritten. */
  private readonly splice?: EventSplice;

  constructor(
    private readonly decoder: StreamDecoder,
    /** undefined: pass the provider's bytes through. */
    private readonly encoder: StreamEncoder | undefined,
    private readonly promptTokens: number,
    countText: (text: string) => number,
    /** A stream that is not SSE (AWS event-stream): its events, re-sent as SSE when passed through. */
    private readonly framer?: StreamFramer,
    /** Same format: let the decoder rewrite the events it names (off when the channel passes bodies through as is). */
    private readonly rewriteEvents = false,
  ) {
    this.counted = new DeliveredTokens(countText);
    const rewrite = decoder.rewrite?.bind(decoder);
    if (!encoder && rewriteEvents && decoder.rewrites && rewrite) this.splice = new EventSplice(decoder.rewrites, rewrite);
  }

  push(chunk: Buffer): string {
    if (this.framer) return this.framed(this.framer.push(chunk));
    const text = this.text.write(chunk);
    const out = this.feed(this.reader.push(text));
    if (this.encoder) return out;
    return this.splice ? this.splice.push(text) : text;
  }

  end(): string {
    if (this.framer) {
      const out = this.framed(this.framer.end());
      return this.encoder ? out + this.encoder.end(this.finalUsage().usage) : out;
    }
    const rest = this.text.end();
    let out = this.feed(this.reader.push(rest));
    out += this.feed(this.reader.end());
    if (!this.encoder) return this.splice ? this.splice.push(rest) + this.splice.end() : rest;
    return out + this.encoder.end(this.finalUsage().usage);
  }

  /** The provider's usage (the last it reported), else a local count of what was delivered. */
  finalUsage(): { usage: Usage; local: boolean } {
    const usage = this.decoder.usage();
    if (usage) return { usage, local: false };
    this.counted.add(this.kept);
    this.kept = '';
    return { usage: { promptTokens: this.promptTokens, completionTokens: this.counted.total, cachedTokens: 0 }, local: true };
  }

  /** Framed events: converted by the encoder, or written back as the SSE the client's format uses. */
  private framed(events: SseEvent[]): string {
    const out = this.feed(events);
    if (this.encoder) return out;
    return events.map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${this.passedData(e)}\n\n`).join('');
  }

  private passedData(event: SseEvent): string {
    if (!this.rewriteEvents || !this.decoder.rewrite) return event.data;
    if (event.event && !this.decoder.rewrites?.has(event.event)) return event.data;
    return this.decoder.rewrite(event) ?? event.data;
  }

  private feed(events: ReturnType<SseEventReader['push']>): string {
    let out = '';
    for (const event of events) {
      for (const chunk of this.decoder.decode(event)) {
        this.keep(chunk);
        if (this.encoder) out += this.encoder.encode(chunk);
      }
    }
    return out;
  }

  private keep(chunk: HubChunk): void {
    if (this.kept.length > MAX_KEPT_CHARS) {
      this.counted.add(this.kept);
      this.kept = '';
    }
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const delta = choice?.delta ?? {};
      if (typeof delta.content === 'string') this.kept += delta.content;
      if (typeof delta.reasoning_content === 'string') this.kept += delta.reasoning_content;
      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        if (typeof call?.function?.name === 'string') this.kept += call.function.name;
        if (typeof call?.function?.arguments === 'string') this.kept += call.function.arguments;
      }
    }
  }
}

/** Text of a hub answer, for a local count when the provider sent no usage. */
export function hubAnswerText(response: HubResponse): string {
  let text = '';
  for (const choice of Array.isArray(response.choices) ? response.choices : []) {
    const message = choice?.message ?? {};
    if (typeof message.content === 'string') text += message.content;
    if (typeof message.reasoning_content === 'string') text += message.reasoning_content;
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
      if (typeof call?.function?.name === 'string') text += call.function.name;
      if (typeof call?.function?.arguments === 'string') text += call.function.arguments;
    }
  }
  return text;
}
