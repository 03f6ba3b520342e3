import { StringDecoder } from 'node:string_decoder';
import { DeliveredTokens } from './delivered-tokens.js';
import { KeptEvents } from './kept-events.js';
import { readUsage, toOpenAiUsage, type Usage } from './usage.js';

/** A line longer than this (no newline in sight) is a broken upstream, not a stream. */
const MAX_LINE_CHARS = 16 * 1024 * 1024;
/**
 * Delivered events kept for a local token count are folded before they pass either limit: parsed, their
 * text counted, then dropped. MAX_KEPT_BYTES bounds the memory a stream holds (5,000 streams, or a flood to
 * a client that stopped reading); MAX_UNCOUNTED_BYTES bounds the events (as relayed) that wait to be
 * parsed, so that the count at a stream's end stays short (1,000 flooded clients leaving at once) and the
 * counting is spread over the stream. KeptEvents stores each event as its difference from a template event
 * (about 25 bytes for an ordinary 170-byte chunk), so the memory limit is rarely the one reached, and an
 * answer of ~380 such chunks ends (usage read, kept events dropped unparsed) before its first fold, where
 * a 32 KB limit on the events as relayed folded from the ~190th.
 */
const MAX_KEPT_BYTES = 32 * 1024;
const MAX_UNCOUNTED_BYTES = 64 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
/** `data: ` and `"usage"` as bytes, for the scan of a passed-through chunk. */
const DATA_PREFIX = Buffer.from('data: ');
const USAGE_KEY = Buffer.from('"usage"');

/** True when `chunk` holds `bytes` at `at` (compared in JS: a Buffer method call costs more than 6 bytes). */
function bytesAt(chunk: Buffer, at: number, bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (chunk[at + i] !== bytes[i]) return false;
  return true;
}

/** Past this many bytes a chunk is scanned with Buffer.indexOf (memchr speed), below it in plain JS. */
const SHORT_CHUNK_BYTES = 512;

/**
 * How many whole ordinary `data: {...}\n\n` events `chunk` is, when it is nothing but such events, exactly
 * the form push() re-emits, none of which mentions usage (such a chunk is forwarded as the same bytes,
 * without decoding or rebuilding it); else 0. A payload not starting with `{` ([DONE] among others) or a
 * CR anywhere (an SSE line end too) leaves the chunk to the general path. The count spares the usual
 * chunk of one event a search for its end when it is kept.
 */
function plainEventCount(chunk: Buffer): number {
  const length = chunk.length;
  if (length < 8 || chunk[length - 1] !== LF || chunk[length - 2] !== LF) return 0;
  return length > SHORT_CHUNK_BYTES ? plainLongChunkEvents(chunk) : plainShortChunkEvents(chunk);
}

/**
 * One pass in plain JS over the bytes: for the usual chunk of one or two events the Buffer compare and
 * indexOf calls it replaces (four or more per chunk, each with its argument checks in JavaScript) were a
 * measurable part of the CPU per relayed chunk with thousands of streams.
 */
function plainShortChunkEvents(chunk: Buffer): number {
  const length = chunk.length;
  let events = 0;
  let at = 0;
  while (at < length) {
    if (!bytesAt(chunk, at, DATA_PREFIX) || chunk[at + 6] !== OPEN_BRACE) return 0;
    at += 7;
    let byte = chunk[at];
    while (byte !== LF) {
      if (byte === CR || (byte === QUOTE && chunk[at + 1] === 0x75 && bytesAt(chunk, at, USAGE_KEY))) return 0;
      byte = chunk[++at];
    }
    // One data line, then the blank line that ends the event (the chunk ends with LF LF, so `at` < length).
    if (chunk[at + 1] !== LF) return 0;
    at += 2;
    events++;
  }
  return events;
}

/** The same test for a long chunk (a fast upstream's read of many events): native searches, a few per event. */
function plainLongChunkEvents(chunk: Buffer): number {
  if (chunk.indexOf(CR) >= 0 || chunk.indexOf(USAGE_KEY) >= 0) return 0;
  const length = chunk.length;
  let events = 0;
  let at = 0;
  while (at < length) {
    if (!bytesAt(chunk, at, DATA_PREFIX) || chunk[at + 6] !== OPEN_BRACE) return 0;
    const newline = chunk.indexOf(LF, at + 7);
    if (chunk[newline + 1] !== LF) return 0;
    at = newline + 2;
    events++;
  }
  return events;
}

export class SseLineTooLongError extends Error {
  constructor() {
    super('upstream stream line is too long');
  }
}

/**
 * Incremental SSE rewriter for OpenAI chat/completions streams. It re-emits each `data:` event as it
 * arrives and watches only for what billing needs: the usage object (looked for with a string test
 * before any JSON parse) and, in case upstream sends none, the delivered chunks for a local count
 * (parsed only at the end, and only when needed). The usage-only chunk is dropped when the client did
 * not ask for it; a synthetic one is added before `[DONE]` when it did and upstream sent none.
 */
export class SseTracker {
  usage?: Usage;
  sawDone = false;
  private tail = '';
  private readonly decoder = new StringDecoder('utf8');
  /** Delivered events not yet counted. */
  private readonly kept = new KeptEvents();
  /** Completion tokens of the text folded so far. */
  private readonly counted: DeliveredTokens;
  private id = '';
  private model = '';
  private created = 0;

  constructor(
    private readonly includeUsage: boolean,
    /** Counts completion tokens of text when upstream sent no usage. */
    countText: (text: string) => number,
    private readonly promptTokens: number,
    private readonly chat: boolean,
  ) {
    this.counted = new DeliveredTokens(countText);
  }

  /**
   * Feeds raw upstream bytes; returns what to write to the client now ('' for nothing). The common chunk
   * (whole ordinary events, no usage, no [DONE]) is returned as the same Buffer: with thousands of streams,
   * decoding and rebuilding every event was a large part of the CPU per relayed chunk.
   */
  push(chunk: Buffer): string | Buffer {
    // An empty tail means no partial line (nor a partial character: a chunk starting with `data: ` cannot continue one).
    const events = this.tail ? 0 : plainEventCount(chunk);
    if (events > 0) {
      if (!this.usage) {
        this.makeRoom(chunk.length);
        if (events === 1) this.kept.addEvent(chunk);
        else this.kept.addEvents(chunk);
      }
      return chunk;
    }
    const text = this.tail ? this.tail + this.decoder.write(chunk) : this.decoder.write(chunk);
    let out = '';
    let start = 0;
    let newline = text.indexOf('\n');
    while (newline >= 0) {
      const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      if (end - start > 5) out += this.line(text, start, end);
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    this.tail = start === 0 ? text : text.slice(start);
    if (this.tail.length > MAX_LINE_CHARS) throw new SseLineTooLongError();
    return out;
  }

  /** The upstream ended: flushes a last unterminated line and closes with usage and [DONE] if missing. */
  end(): string {
    const rest = this.tail + this.decoder.end();
    this.tail = '';
    let out = rest.length > 5 ? this.line(rest, 0, rest.endsWith('\r') ? rest.length - 1 : rest.length) : '';
    if (!this.sawDone) out += this.done();
    return out;
  }

  /** Completion tokens: upstream's, else a local count of what was delivered. */
  finalUsage(): { usage: Usage; local: boolean } {
    if (this.usage) return { usage: this.usage, local: false };
    return {
      usage: { promptTokens: this.promptTokens, completionTokens: this.deliveredTokens(), cachedTokens: 0 },
      local: true,
    };
  }

  private line(text: string, start: number, end: number): string {
    if (!text.startsWith('data:', start)) return '';
    const payload = text.slice(text.charCodeAt(start + 5) === 32 ? start + 6 : start + 5, end);
    if (payload === '[DONE]') return this.done();
    if (payload.includes('"usage"')) {
      const parsed = tryParse(payload);
      const usage = readUsage(parsed?.usage);
      if (usage) {
        this.usage = usage;
        const choices = parsed?.choices;
        if (!this.includeUsage && (!Array.isArray(choices) || choices.length === 0)) return '';
      }
    }
    if (!this.usage) {
      this.makeRoom(payload.length + 8);
      this.kept.addPayload(payload);
    }
    return `data: ${payload}\n\n`;
  }

  private done(): string {
    if (this.sawDone) return '';
    this.sawDone = true;
    if (!this.includeUsage || this.usage) return 'data: [DONE]\n\n';
    const { usage } = this.finalUsage();
    const chunk = {
      id: this.id,
      object: this.chat ? 'chat.completion.chunk' : 'text_completion',
      created: this.created || Math.floor(Date.now() / 1000),
      model: this.model,
      choices: [],
      usage: toOpenAiUsage(usage),
    };
    return `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`;
  }

  /** Folds what is kept when `bytes` more (as relayed) would pass a limit on what a stream keeps. */
  private makeRoom(bytes: number): void {
    if (this.kept.size + bytes > MAX_KEPT_BYTES || this.kept.relayed + bytes > MAX_UNCOUNTED_BYTES) this.fold();
  }

  /** Parses kept chunks, counts their text (and keeps the ids a synthetic chunk needs), then drops them. */
  private fold(): void {
    let text = '';
    const add = (payload: string) => {
      const parsed = tryParse(payload);
      if (!parsed) return;
      if (!this.id && typeof parsed.id === 'string') this.id = parsed.id;
      if (!this.model && typeof parsed.model === 'string') this.model = parsed.model;
      if (!this.created && typeof parsed.created === 'number') this.created = parsed.created;
      if (Array.isArray(parsed.choices)) for (const choice of parsed.choices) text += choiceText(choice);
    };
    for (const payload of this.kept.take()) add(payload);
    this.counted.add(text);
  }

  private deliveredTokens(): number {
    this.fold();
    return this.counted.total;
  }
}

function tryParse(payload: string): Record<string, any> | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    return typeof value === 'object' && value !== null ? (value as Record<string, any>) : undefined;
  } catch {
    return undefined;
  }
}

/** Text a streamed choice carries: content, reasoning, refusal, legacy completion text, tool call arguments. */
function choiceText(choice: any): string {
  if (!choice || typeof choice !== 'object') return '';
  if (typeof choice.text === 'string') return choice.text;
  const delta = choice.delta;
  if (!delta || typeof delta !== 'object') return '';
  let text = '';
  if (typeof delta.content === 'string') text += delta.content;
  if (typeof delta.reasoning_content === 'string') text += delta.reasoning_content;
  if (typeof delta.refusal === 'string') text += delta.refusal;
  if (Array.isArray(delta.tool_calls)) {
    for (const call of delta.tool_calls) {
      const fn = call?.function;
      if (typeof fn?.name === 'string') text += fn.name;
      if (typeof fn?.arguments === 'string') text += fn.arguments;
    }
  }
  return text;
}
