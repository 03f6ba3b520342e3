import { SseEventReader } from '../providers/sse-events.js';
import type { SseEvent } from '../providers/types.js';

/** An event held this long without its blank line is passed on as it came (a broken stream is not held whole). */
const MAX_HELD_CHARS = 1024 * 1024;

type Mode = 'open' | 'pass' | 'hold';

/**
 * A same-format stream relayed as it came, except the events its decoder rewrites (new-api completes Claude's
 * message_delta usage). Text of any other event goes out the moment it arrives, a partial line included; an
 * event whose `event:` field (or, without one, its JSON `type`) is in `types` is held to its blank line and
 * then sent as it came, or with its `data:` lines replaced by one line of the new data.
 */
export class EventSplice {
  private mode: Mode = 'open';
  /** Unsent text of the event being decided or held. */
  private pending = '';
  /** The current line up to the last chunk, and how much of it already went out. */
  private line = '';
  private lineSent = 0;

  constructor(
    private readonly types: ReadonlySet<string>,
    private readonly rewrite: (event: SseEvent) => string | undefined,
  ) {}

  push(text: string): string {
    let out = '';
    let start = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
      out += this.completeLine(this.line + text.slice(start, newline + 1));
      this.line = '';
      this.lineSent = 0;
      start = newline + 1;
    }
    const rest = text.slice(start);
    this.line += rest;
    if (this.mode === 'pass') {
      out += this.line.slice(this.lineSent);
      this.lineSent = this.line.length;
    }
    return out;
  }

  /** The stream ended: a held last event without its blank line is still offered to the rewrite. */
  end(): string {
    const unsent = this.line.slice(this.lineSent);
    if (this.mode === 'hold') return this.finish(this.pending + unsent);
    return this.pending + unsent;
  }

  private completeLine(line: string): string {
    const content = line.replace(/\r?\n$/, '');
    if (this.mode === 'pass') {
      if (content === '') this.mode = 'open';
      return line.slice(this.lineSent);
    }
    this.pending += line;
    if (content === '') {
      const event = this.pending;
      const held = this.mode === 'hold';
      this.pending = '';
      this.mode = 'open';
      return held ? this.finish(event) : event;
    }
    if (this.mode === 'open') this.mode = this.decide(content);
    if (this.mode === 'pass' || this.pending.length > MAX_HELD_CHARS) {
      this.mode = 'pass';
      const out = this.pending;
      this.pending = '';
      return out;
    }
    return '';
  }

  /** Held while the event may be one to rewrite: comments and `id:` lines before its type decide nothing. */
  private decide(content: string): Mode {
    if (content.startsWith('event:')) return this.types.has(fieldValue(content)) ? 'hold' : 'pass';
    if (!content.startsWith('data:')) return 'open';
    try {
      const data: unknown = JSON.parse(fieldValue(content));
      const type = typeof data === 'object' && data !== null ? (data as { type?: unknown }).type : undefined;
      return typeof type === 'string' && this.types.has(type) ? 'hold' : 'pass';
    } catch {
      return 'pass';
    }
  }

  private finish(raw: string): string {
    const reader = new SseEventReader();
    const events = [...reader.push(raw), ...reader.end()];
    const data = events.length === 1 ? this.rewrite(events[0]!) : undefined;
    if (data === undefined) return raw;
    let replaced = false;
    return raw
      .split(/(?<=\n)/)
      .map((line) => {
        if (!/^data(:|\r?\n|$)/.test(line)) return line;
        if (replaced) return '';
        replaced = true;
        const eol = line.endsWith('\r\n') ? '\r\n' : line.endsWith('\n') ? '\n' : '';
        return `data: ${data}${eol}`;
      })
      .join('');
  }
}

function fieldValue(line: string): string {
  const value = line.slice(line.indexOf(':') + 1);
  return value.startsWith(' ') ? value.slice(1) : value;
}
