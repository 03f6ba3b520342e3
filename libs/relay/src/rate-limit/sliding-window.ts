/**
 * In-memory sliding logs: per key, the times of the last requests inside the window (new-api's
 * in-memory limiter, without its unbounded growth: stale keys are swept).
 */
export class SlidingWindowLog {
  private readonly logs = new Map<string, number[]>();

  /** Whether one more request fits: fewer than `max` requests in the last `windowMs`. */
  fits(key: string, max: number, windowMs: number, now = Date.now()): boolean {
    return this.prune(key, windowMs, now).length < max;
  }

  /** Records a request if it fits; returns whether it did. */
  take(key: string, max: number, windowMs: number, now = Date.now()): boolean {
    const log = this.prune(key, windowMs, now);
    if (log.length >= max) return false;
    log.push(now);
    this.logs.set(key, log);
    return true;
  }

  /** Records a request whatever the count, keeping at most `max` entries (the success log). */
  record(key: string, max: number, windowMs: number, now = Date.now()): void {
    const log = this.prune(key, windowMs, now);
    log.push(now);
    if (log.length > max) log.splice(0, log.length - max);
    this.logs.set(key, log);
  }

  /** Drops keys with nothing inside the window. */
  sweep(windowMs: number, now = Date.now()): void {
    for (const [key, log] of this.logs) if (!log.length || log[log.length - 1]! <= now - windowMs) this.logs.delete(key);
  }

  get size(): number {
    return this.logs.size;
  }

  private prune(key: string, windowMs: number, now: number): number[] {
    const log = this.logs.get(key) ?? [];
    let stale = 0;
    while (stale < log.length && log[stale]! <= now - windowMs) stale++;
    if (stale) log.splice(0, stale);
    return log;
  }
}
