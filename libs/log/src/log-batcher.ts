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
   * took it), so trying again would write them twice; may throw while the database is down. Without it
   * a failed write is tried again as it is.
   */
  committed?: (rows: T[]) => Promise<boolean>;
}

/**
 * Buffers rows off the request path and writes them in batches: when its owner calls `flush()`
 * (periodically) or as soon as maxRows are waiting. Flushes run one after another, so `flush()` resolves only once every row
 * pushed before the call has been written (or given up after one retry). Never throws.
 */
export class LogBatcher<T> {
  private pending: T[] = [];
  private chain: Promise<void> = Promise.resolve();
  private kicked = false;

  constructor(private readonly options: LogBatcherOptions<T>) {}

  get size(): number {
    return this.pending.length;
  }

  push(row: T): void {
    if (this.pending.length >= this.options.maxPending) {
      this.options.onLoss(1, 'buffer full');
      return;
    }
    this.pending.push(row);
    if (this.pending.length >= this.options.maxRows && !this.kicked) {
      this.kicked = true;
      void this.flush().finally(() => (this.kicked = false));
    }
  }

  flush(): Promise<void> {
    const run = this.chain.then(() => this.drain());
    this.chain = run;
    return run;
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const rows = this.pending.splice(0, this.options.maxRows);
      await this.writeWithRetry(rows);
    }
  }

  /**
   * Writes rows, trying a failed write once more. After a failure the outcome is uncertain (the server may
   * have committed what it never answered), so each later try first asks whether the rows are there.
   */
  private async writeWithRetry(rows: T[], uncertain = false): Promise<void> {
    let failure: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        if (uncertain && (await this.options.committed?.(rows))) return;
        await this.options.write(rows);
        return;
      } catch (error) {
        // A transient failure (lock timeout, dropped connection) usually passes on a second try.
        failure = error;
        uncertain = true;
      }
    }
    if (rows.length === 1) this.options.onLoss(1, (failure as Error)?.message ?? String(failure));
    // One bad row must not cost the whole batch: write them one by one, losing only the bad ones.
    else for (const row of rows) await this.writeWithRetry([row], true);
  }
}
