import { FRAGMENT_CHARS, MIN_SECRET_CHARS, redactKeys, secretsOf } from './redact.js';

/** Bits of the quad filter's index: 32,768 bits (4 KB) per redactor keeps false hits rare for a few keys. */
const FILTER_BITS = 15;
/** Redactors kept for reuse (one per distinct key set); the cache is emptied when it is full. */
const CACHE_LIMIT = 256;
/** Bytes a stream holds back when its output ends inside what could be a key (a run split across two chunks). */
const MAX_CARRY = FRAGMENT_CHARS - 1;
/** Bytes between sampled 4-byte windows: FRAGMENT_CHARS - 4 + 1 is the most that still meets every run. */
const SAMPLE_STRIDE = FRAGMENT_CHARS - 3;
const MASK = Buffer.from('***');
const EMPTY = Buffer.alloc(0);

const cache = new Map<string, KeyRedactor | null>();

/**
 * Hides a channel's keys in every byte relayed to a client, with redactKeys' rule (each secret whole, or
 * any FRAGMENT_CHARS run copied from a long one), cheaply enough to run on every streamed chunk. Any run of
 * 8 bytes has 5 starts of a 4-byte window inside it, one of them a multiple of SAMPLE_STRIDE (5), so a
 * chunk is checked by reading the 4-byte word at every fifth byte against a bit filter of the keys' 4-byte
 * windows (a JavaScript loop over a fifth of the bytes, no allocation); only a candidate is confirmed
 * exactly. Secrets shorter than FRAGMENT_CHARS are found whole with Buffer.indexOf. About 1 ns per byte
 * on a large read (a fast upstream's 64 KB), so ~0.2 us for an ordinary 185-byte chunk.
 */
export class KeyRedactor {
  /** Bit filter of every 4-byte window of the long secrets (FRAGMENT_CHARS+ bytes). */
  private readonly filter = new Uint32Array(1 << (FILTER_BITS - 5));
  /** The same windows exactly, as little-endian int32. */
  private readonly quads = new Set<number>();
  /** Every FRAGMENT_CHARS-byte run of the long secrets, as latin1 text. */
  private readonly grams = new Set<string>();
  /** Secrets too short for runs: hidden when quoted whole. */
  private readonly shortSecrets: Buffer[] = [];
  /** Printable ASCII bytes that occur in a secret: a stream output ending in them may be cut inside a key. */
  readonly keyBytes = new Uint8Array(256);

  private constructor(
    private readonly keys: readonly string[],
    secrets: readonly Buffer[],
  ) {
    for (const secret of secrets) {
      for (const byte of secret) if (byte > 0x20 && byte < 0x7f) this.keyBytes[byte] = 1;
      if (secret.length < FRAGMENT_CHARS) {
        this.shortSecrets.push(secret);
        continue;
      }
      for (let i = 0; i + 4 <= secret.length; i++) {
        const quad = quadAt(secret, i);
        this.quads.add(quad);
        const bit = filterIndex(quad);
        this.filter[bit >>> 5]! |= 1 << (bit & 31);
      }
      for (let i = 0; i + FRAGMENT_CHARS <= secret.length; i++) this.grams.add(secret.toString('latin1', i, i + FRAGMENT_CHARS));
    }
  }

  /** The redactor of these keys, or undefined when they hold no secret long enough to hide. */
  static of(keys: readonly string[]): KeyRedactor | undefined {
    const id = keys.join('\n\u0000');
    let redactor = cache.get(id);
    if (redactor === undefined) {
      const secrets = keys
        .flatMap(secretsOf)
        .filter((s) => s.length >= MIN_SECRET_CHARS)
        .map((s) => Buffer.from(s, 'utf8'));
      redactor = secrets.length > 0 ? new KeyRedactor([...keys], secrets) : null;
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(id, redactor);
    }
    return redactor ?? undefined;
  }

  /** A whole answer (non-stream body): returned as is when it holds no piece of a key. */
  redactText(text: string): string {
    return this.mayHold(Buffer.from(text, 'utf8')) ? redactKeys(text, this.keys) : text;
  }

  /** A redacting state for one stream's output (keys split across chunks are found). */
  stream(): KeyRedactingStream {
    return new KeyRedactingStream(this);
  }

  /** False when `bytes` certainly holds no secret; true when it may (then search with mark). */
  mayHold(bytes: Buffer): boolean {
    const filter = this.filter;
    const end = bytes.length - 4;
    for (let at = 0; at <= end; at += SAMPLE_STRIDE) {
      const quad = quadAt(bytes, at);
      const bit = filterIndex(quad);
      if ((filter[bit >>> 5]! >>> (bit & 31)) & 1 && this.quads.has(quad) && this.gramAround(bytes, at)) return true;
    }
    for (const secret of this.shortSecrets) if (bytes.indexOf(secret) >= 0) return true;
    return false;
  }

  /**
   * Whether a key's run covers the 4-byte window at `at`: one of the (at most 5) runs that contain it is a
   * secret's. A window shared with ordinary text (a model name like a key's word) then costs a few lookups,
   * not a search of the whole output.
   */
  private gramAround(bytes: Buffer, at: number): boolean {
    const last = Math.min(at, bytes.length - FRAGMENT_CHARS);
    for (let from = Math.max(0, at + 4 - FRAGMENT_CHARS); from <= last; from++) if (this.isGram(bytes, from)) return true;
    return false;
  }

  /** The FRAGMENT_CHARS bytes at `from` are a secret's run (both halves are key windows before the exact lookup). */
  private isGram(bytes: Buffer, from: number): boolean {
    return (
      this.quads.has(quadAt(bytes, from)) &&
      this.quads.has(quadAt(bytes, from + 4)) &&
      this.grams.has(bytes.toString('latin1', from, from + FRAGMENT_CHARS))
    );
  }

  /** Sets `hidden[i]` for every byte of `bytes` that belongs to a secret (whole or a FRAGMENT_CHARS run). */
  mark(bytes: Buffer, hidden: Uint8Array): void {
    for (const secret of this.shortSecrets)
      for (let at = bytes.indexOf(secret); at >= 0; at = bytes.indexOf(secret, at + 1)) hidden.fill(1, at, at + secret.length);
    for (let at = 0; at + FRAGMENT_CHARS <= bytes.length; at++) {
      if (this.isGram(bytes, at)) hidden.fill(1, at, at + FRAGMENT_CHARS);
    }
  }
}

/**
 * One stream's output through a KeyRedactor. An output that ends in bytes that could begin a key keeps up
 * to MAX_CARRY of them back and checks them with the next output (SSE events end in a newline, so an
 * ordinary stream carries nothing and a clean output is returned as is, without a copy). Bytes already
 * found hidden stay hidden when they are carried, and a hidden run cut by a chunk boundary is one `***`.
 */
export class KeyRedactingStream {
  private carry: Buffer = EMPTY;
  private carryHidden?: Uint8Array;
  /** The last byte returned was hidden (a run that continues is not masked twice). */
  private endedHidden = false;

  constructor(private readonly redactor: KeyRedactor) {}

  push(output: Buffer): Buffer {
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, output]) : output;
    let keep = 0;
    const keyBytes = this.redactor.keyBytes;
    while (keep < MAX_CARRY && keep < bytes.length && keyBytes[bytes[bytes.length - 1 - keep]!]) keep++;
    return this.emit(bytes, bytes.length - keep);
  }

  /** What is still held back, at the stream's end. */
  end(output: Buffer = EMPTY): Buffer {
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, output]) : output;
    return this.emit(bytes, bytes.length);
  }

  /** Returns bytes[0, upTo) redacted and carries the rest. */
  private emit(bytes: Buffer, upTo: number): Buffer {
    const carried = this.carryHidden;
    if (carried === undefined && !this.redactor.mayHold(bytes)) {
      this.endedHidden = false;
      this.carry = upTo === bytes.length ? EMPTY : Buffer.from(bytes.subarray(upTo));
      return upTo === bytes.length ? bytes : bytes.subarray(0, upTo);
    }
    const hidden = new Uint8Array(bytes.length);
    if (carried) hidden.set(carried);
    this.redactor.mark(bytes, hidden);
    const parts: Buffer[] = [];
    let from = 0;
    let wasHidden = this.endedHidden;
    for (let at = 0; at < upTo; at++) {
      if (!hidden[at]) {
        wasHidden = false;
        continue;
      }
      if (at > from) parts.push(bytes.subarray(from, at));
      if (!wasHidden) parts.push(MASK);
      wasHidden = true;
      from = at + 1;
    }
    if (upTo > from) parts.push(bytes.subarray(from, upTo));
    this.endedHidden = wasHidden;
    this.carry = upTo === bytes.length ? EMPTY : Buffer.from(bytes.subarray(upTo));
    this.carryHidden = hidden.subarray(upTo).includes(1) ? hidden.slice(upTo) : undefined;
    return Buffer.concat(parts);
  }
}

/** The 4 bytes at `at` as a little-endian int32. */
function quadAt(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

function filterIndex(quad: number): number {
  return Math.imul(quad, 0x9e3779b1) >>> (32 - FILTER_BITS);
}
