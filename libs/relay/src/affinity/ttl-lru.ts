interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * A bounded map whose entries expire: the least recently used entry goes first when it is full, and an expired
 * entry is dropped when it is next read or listed. Map keeps insertion order, so re-inserting on read is the LRU.
 */
export class TtlLru<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private capacity: number,
    /** Monotonic by default: a wall-clock step neither ends entries early nor stretches them. */
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    this.trim();
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  /** The live keys (expired ones are dropped on the way). */
  keys(): string[] {
    const now = this.now();
    const live: string[] = [];
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) this.entries.delete(key);
      else live.push(key);
    }
    return live;
  }

  get limit(): number {
    return this.capacity;
  }

  /** A new capacity (the option changed); the oldest entries go when it shrinks. */
  resize(capacity: number): void {
    this.capacity = capacity;
    this.trim();
  }

  private trim(): void {
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}
