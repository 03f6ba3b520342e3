/**
 * Picks the next batch size so that one batch takes about `targetMs`: SQLite's driver is synchronous, so a
 * batch blocks the event loop for its whole duration, and a request waits at most one batch. The size grows
 * while batches are quick and shrinks when the database is busy, always within [min, max].
 */
export class BatchSizer {
  private size: number;

  constructor(
    private readonly targetMs: number,
    private readonly min: number,
    private readonly max: number,
  ) {
    this.size = min;
  }

  get current(): number {
    return this.size;
  }

  /** Tells how long the last batch of `current` rows took. */
  record(elapsedMs: number): void {
    if (elapsedMs < this.targetMs / 2) this.size = Math.min(this.max, this.size * 2);
    else if (elapsedMs > this.targetMs * 2) this.size = Math.max(this.min, Math.floor(this.size / 2));
  }
}

/** Lets timers, sockets and requests waiting in the event loop run before the next batch. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * How long the cleanup worker rests after a transaction that held SQLite's write lock `heldMs`: `ratio` times as
 * long, never under 4 ms. Main-thread writes no longer wait out a whole transaction (the write gate cuts it short),
 * so the rest bounds the worker's share of the CPU, which the relay's thread shares on a small machine.
 * Self-contained: the worker runs this function's source text.
 */
export function restAfterBatch(heldMs: number, ratio: number): number {
  return Math.max(4, Math.ceil(heldMs * ratio));
}
