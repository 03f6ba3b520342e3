const FIRST_CAPACITY = 2048;
const LF = 0x0a;

/**
 * The delivered `data:` events a stream keeps for a local token count (used only when the upstream sends
 * no usage), copied into one growing byte buffer per stream. Keeping each relayed chunk's own Buffer
 * instead held hundreds of small objects per stream (each pinning its socket read's memory), all
 * surviving into the old generation: with thousands of streams that was a large share of the GC work and
 * of the RSS per stream. A copy of ~150 bytes costs less than that, and the chunk dies young.
 */
export class KeptEvents {
  private bytes?: Buffer;
  private length = 0;

  /** Bytes kept so far. */
  get size(): number {
    return this.length;
  }

  /** Whole canonical events (`data: <payload>\n\n` ...), as relayed. */
  addEvents(chunk: Buffer): void {
    // TypedArray set: the same copy as Buffer.copy without its JavaScript argument handling.
    this.room(chunk.length).set(chunk, this.length);
    this.length += chunk.length;
  }

  /** One event's payload (the text after `data: `). */
  addPayload(payload: string): void {
    const bytes = Buffer.byteLength(payload);
    const into = this.room(bytes + 8);
    let at = this.length + into.write('data: ', this.length, 'latin1');
    at += into.write(payload, at, 'utf8');
    into[at++] = LF;
    into[at++] = LF;
    this.length = at;
  }

  /** The kept payloads in order; the buffer is emptied (and reused). */
  take(): string[] {
    if (this.length === 0) return [];
    const text = this.bytes!.toString('utf8', 0, this.length);
    this.length = 0;
    const payloads: string[] = [];
    for (const event of text.split('\n\n')) if (event.length > 6) payloads.push(event.slice(6));
    return payloads;
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
