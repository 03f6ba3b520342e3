import { StringDecoder } from 'node:string_decoder';
import type { Json, SseEvent } from './types.js';

/** A line longer than this (no newline in sight) is a broken upstream, not a stream. */
const MAX_LINE_CHARS = 16 * 1024 * 1024;

/**
 * Incremental server-sent-events reader: bytes in, complete events out. An event ends at a blank line;
 * several `data:` lines of one event are joined with newlines, as the SSE standard says. Providers that
 * put one `data:` line per event without a blank line between (seen in the wild) are read too: a second
 * `data:` line after a complete JSON payload starts a new event.
 */
export class SseEventReader {
  private readonly decoder = new StringDecoder('utf8');
  private tail = '';
  private event = '';
  private data: string[] = [];
  private meta?: string;

  push(chunk: Buffer | string): SseEvent[] {
    const text = this.tail + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    const out: SseEvent[] = [];
    let start = 0;
    let newline = text.indexOf('\n', start);
    while (newline >= 0) {
      const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      this.line(text.slice(start, end), out);
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    this.tail = text.slice(start);
    if (this.tail.length > MAX_LINE_CHARS) throw new Error('upstream stream line is too long');
    return out;
  }

  /** The stream ended: a last event without its blank line still counts. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    const rest = this.tail + this.decoder.end();
    this.tail = '';
    if (rest) this.line(rest.endsWith('\r') ? rest.slice(0, -1) : rest, out);
    this.flush(out);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      this.flush(out);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'meta') this.meta = value;
    else if (field === 'data') {
      if (this.data.length && looksComplete(this.data[this.data.length - 1]!)) this.flush(out);
      this.data.push(value);
    }
  }

  private flush(out: SseEvent[]): void {
    if (this.data.length || this.meta !== undefined) {
      const event: SseEvent = { event: this.event, data: this.data.join('\n') };
      if (this.meta !== undefined) event.meta = this.meta;
      out.push(event);
    }
    this.event = '';
    this.data = [];
    this.meta = undefined;
  }
}

function looksComplete(data: string): boolean {
  const last = data.trimEnd();
  return data === '[DONE]' || (data.startsWith('{') && last.endsWith('}')) || (data.startsWith('[') && last.endsWith(']'));
}

export function parseJsonObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}
