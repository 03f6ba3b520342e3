import { setTimeout as sleep } from 'node:timers/promises';

export interface LogBatcherOptions<T> {
  /** Writes one batch; may throw. */
  write: (rows: T[]) => Promise<void>;
  /** Rows per INSERT; reaching it also triggers a flush without waiting for the owner's periodic one. */
  maxRows: number;
  /** Rows held at most while the database is slow or down; beyond it new rows are dropped (memory stays bounded). */
  maxPending: number;
  /** Told about a failed write (after its retry) or dropped rows; must not throw. */
  onLoss: (count: number, reason: string) => void;
  /**
   * Whether a write of these rows that failed anyway committed (a connection dropped after the server
   * took it), so trying again would write them twice; throws while the database does not answer. Without
   * it a failed write is tried again as it is, and rows are never kept for a later flush.
   */
  committed?: (rows: T[]) => Promise<boolean>;
  /**
   * Whether the database refused the rows themselves (a data or constraint error): trying again cannot
   * help, so the batch is written row by row and only the refused rows are lost. Without it every
   * failure after a retry counts as such.
   */
  refused?: (error: unknown) => boolean;
  /**
   * Pause before a failed write is checked and tried again. A server that lost the connection may still be
   * finishing (or rolling back) the statement it had in hand; the check should come after it.
   */
  retryPauseMs?: number;
}

/**
 * Buffers rows off the request path and writes them in batches: when its owner calls `flush()`
 * (periodically) or as soon as maxRows are waiting. Flushes run one after another. Rows the database
 * refuses (see `refused`) are written one by one and only the refused ones are reported lost; rows the
 * database could not take (a dropped connection, a failover) stay buffered, in order, up to maxPending, and
 * are written by a later flush once it is known whether the failed write committed. Never throws.
 */
export class LogBatcher<T> {
  private pending: T[] = [];
  /** Rows whose last write failed without a clear answer: written again only once `committed` says it did not commit. */
  private unsure: T[] = [];
  private chain: Promise<boolean> = Promise.resolve(true);
  private kicked = false;

  constructor(private readonly options: LogBatcherOptions<T>) {}

  get size(): number {
    return this.unsure.length + this.pending.length;
  }

  push(row: T): void {
    if (this.size >= this.options.maxPending) {
      this.options.onLoss(1, 'buffer full');
      return;
    }
    this.pending.push(row);
    if (this.pending.length >= this.options.maxRows && !this.kicked) {
      this.kicked = true;
      void this.flush().finally(() => (this.kicked = false));
    }
  }

  /**
   * Resolves true once every row pushed before the call is written (or reported lost), false when some
   * still wait because the database did not answer (they stay buffered for the next flush).
   */
  flush(): Promise<boolean> {
    const run = this.chain.then(() => this.drain());
    this.chain = run;
    return run;
  }

  private async drain(): Promise<boolean> {
    if (this.unsure.length > 0) {
      const rows = this.unsure;
      this.unsure = [];
      if (!(await this.retry(rows))) return false;
    }
    while (this.pending.length > 0) {
      if (!(await this.write(this.pending.splice(0, this.options.maxRows)))) return false;
    }
    return true;
  }

  /** Writes rows not tried before; false when they wait for the database (kept as unsure). */
  private async write(rows: T[]): Promise<boolean> {
    try {
      await this.options.write(rows);
      return true;
    } catch (error) {
      if (this.options.refused?.(error)) return this.oneByOne(rows, error);
      // A transient failure (lock timeout, dropped connection) usually passes on a second try.
      return this.retry(rows);
    }
  }

  /** Writes rows whose earlier write failed: first asks whether that write committed after all. */
  private async retry(rows: T[]): Promise<boolean> {
    if (this.options.retryPauseMs) await sleep(this.options.retryPauseMs);
    try {
      if (await this.options.committed?.(rows)) return true;
      await this.options.write(rows);
      return true;
    } catch (error) {
      if (!this.options.committed || this.options.refused?.(error)) return this.oneByOne(rows, error);
      this.unsure = rows;
      return false;
    }
  }

  /** One bad row must not cost the whole batch: row by row, losing only the rows the database refuses. */
  private async oneByOne(rows: T[], error: unknown): Promise<boolean> {
    if (rows.length === 1) {
      this.options.onLoss(1, (error as Error)?.message ?? String(error));
      return true;
    }
    for (let i = 0; i < rows.length; i++) {
      if (!(await this.write([rows[i]!]))) {
        this.pending.unshift(...rows.slice(i + 1));
        return false;
      }
    }
    return true;
  }
}
