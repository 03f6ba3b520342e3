import { StringDecoder } from 'node:string_decoder';
import type { SseEvent, StreamFramer } from './types.js';

const MAX_LINE_CHARS = 16 * 1024 * 1024;

/** A stream of one JSON object per line (Cohere v1 chat): each non-empty line becomes one event for the decoder. */
export class NdjsonFramer implements StreamFramer {
  private readonly decoder = new StringDecoder('utf8');
  private tail = '';

  push(chunk: Buffer): SseEvent[] {
    const lines = (this.tail + this.decoder.write(chunk)).split('\n');
    this.tail = lines.pop() ?? '';
    if (this.tail.length > MAX_LINE_CHARS) throw new Error('upstream stream line is too long');
    return toEvents(lines);
  }

  end(): SseEvent[] {
    const rest = this.tail + this.decoder.end();
    this.tail = '';
    return toEvents([rest]);
  }
}

function toEvents(lines: string[]): SseEvent[] {
  return lines
    .map((line) => line.trim())
    .filter(Boolean)
    .map((data) => ({ event: '', data }));
}
