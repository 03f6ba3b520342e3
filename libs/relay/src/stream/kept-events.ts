const FIRST_CAPACITY = 1024;
const LF = 0x0a;
/** `data: ` before a payload and the blank line after it. */
const PREFIX_BYTES = 6;
const EVENT_END_BYTES = 2;
/** A record's head: bytes shared with the previous payload's start (uint16) and end (uint16), new bytes (uint32). */
const HEAD_BYTES = 8;
const MAX_SHARED = 0xffff;

/**
 * The delivered `data:` payloads a stream keeps for a local token count (used only when the upstream sends
 * no usage), stored in one growing byte buffer per stream, each as a difference from the payload before it:
 * the length of the start and of the end it shares with that payload, and the bytes in between. The chunks
 * of one answer repeat their id, object, created, model and the JSON around the delta, so a 170-byte chunk
 * keeps about 25 bytes. A stream therefore holds several times more events within the same memory before
 * the tracker has to fold them (parse every kept payload and count its text, work that is wasted when the
 * usage arrives at the end, as it usually does), and 5,000 streams hold far less memory. Lossless: take()
 * gives back every payload byte for byte.
 *
 * Keeping each relayed chunk's own Buffer instead held hundreds of small objects per stream (each pinning
 * its socket read's memory), all surviving into the old generation.
 */
export class KeptEvents {
  private bytes?: Buffer;
  private length = 0;
  /** The last payload kept, whole (the base of the next record); its bytes are `last[0, lastLength)`. */
  private last?: Buffer;
  private lastLength = 0;

  /** Bytes kept so far (never more than the events added took as `data: ...\n\n`). */
  get size(): number {
    return this.length;
  }

  /** Whole canonical events (`data: <payload>\n\n` ...), as relayed. */
  addEvents(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(LF, start + PREFIX_BYTES);
      if (end < 0) return;
      this.add(chunk, start + PREFIX_BYTES, end);
      start = end + EVENT_END_BYTES;
    }
  }

  /** One event's payload (the text after `data: `). */
  addPayload(payload: string): void {
    const bytes = Buffer.from(payload, 'utf8');
    this.add(bytes, 0, bytes.length);
  }

  /** The kept payloads in order; the buffer is emptied (and reused). */
  take(): string[] {
    const payloads: string[] = [];
    const bytes = this.bytes;
    let base = Buffer.alloc(0);
    for (let at = 0; bytes && at < this.length; ) {
      const shared = bytes.readUInt16LE(at);
      const sharedEnd = bytes.readUInt16LE(at + 2);
      const fresh = bytes.readUInt32LE(at + 4);
      at += HEAD_BYTES;
      const payload = Buffer.concat([base.subarray(0, shared), bytes.subarray(at, at + fresh), base.subarray(base.length - sharedEnd)]);
      at += fresh;
      payloads.push(payload.toString('utf8'));
      base = payload;
    }
    this.length = 0;
    this.lastLength = 0;
    return payloads;
  }

  /** Keeps `source[start, end)` as its difference from the last payload, which it then becomes. */
  private add(source: Buffer, start: number, end: number): void {
    const size = end - start;
    const last = this.last;
    const lastLength = this.lastLength;
    const most = Math.min(size, lastLength, MAX_SHARED);
    let shared = 0;
    if (last) while (shared < most && source[start + shared] === last[shared]) shared++;
    const mostEnd = Math.min(most - shared, MAX_SHARED);
    let sharedEnd = 0;
    if (last) while (sharedEnd < mostEnd && source[end - 1 - sharedEnd] === last[lastLength - 1 - sharedEnd]) sharedEnd++;
    const fresh = source.subarray(start + shared, end - sharedEnd);

    const into = this.room(HEAD_BYTES + fresh.length);
    let at = this.length;
    into.writeUInt16LE(shared, at);
    into.writeUInt16LE(sharedEnd, at + 2);
    into.writeUInt32LE(fresh.length, at + 4);
    at += HEAD_BYTES;
    into.set(fresh, at);
    this.length = at + fresh.length;
    this.remember(source, start, end, shared, sharedEnd);
  }

  /** Makes `source[start, end)` the last payload, rewriting only what differs from the one before. */
  private remember(source: Buffer, start: number, end: number, shared: number, sharedEnd: number): void {
    const size = end - start;
    let last = this.last;
    if (!last || last.length < size) {
      const grown = Buffer.allocUnsafeSlow(Math.max(size, last ? last.length * 2 : 256));
      if (last) grown.set(last.subarray(0, this.lastLength));
      last = this.last = grown;
    }
    // The shared end moves to its new place first (it may overlap where the new middle goes).
    last.copyWithin(size - sharedEnd, this.lastLength - sharedEnd, this.lastLength);
    last.set(source.subarray(start + shared, end - sharedEnd), shared);
    this.lastLength = size;
  }

  /** The buffer, grown (doubling, from a small start: most streams are short) to hold `extra` more bytes. */
  private room(extra: number): Buffer {
    const needed = this.length + extra;
    const current = this.bytes;
    if (current && current.length >= needed) return current;
    let capacity = current ? current.length * 2 : FIRST_CAPACITY;
    while (capacity < needed) capacity *= 2;
    // Its own memory, not a slice of Node's shared pool (which a long stream would pin).
    const grown = Buffer.allocUnsafeSlow(capacity);
    if (current) grown.set(current.subarray(0, this.length));
    this.bytes = grown;
    return grown;
  }
}
