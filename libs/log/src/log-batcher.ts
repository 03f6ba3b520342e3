export interface LogBatcherOptions<T> {
  /** Writes one batch; may throw. */
  write: (rows: T[]) => Promise<void>;
  /** Rows per INSERT; reaching it also triggers a flush without waiting for the owner's periodic one. */
  maxRows: number;
  /** Rows held at most while the database is slow or down; beyond it new rows are dropped (memory stays bounded). */
  maxPending: number;
  /** Told about a failed write (after its retry) or dropped rows; must not throw. */
  onLoss: (count: number, reason: string) => void;
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

  private async writeWithRetry(rows: T[]): Promise<void> {
    try {
      await this.options.write(rows);
      return;
    } catch {
      // A transient failure (lock timeout, dropped connection) usually passes on a second try.
    }
    try {
      await this.options.write(rows);
    } catch (error) {
      if (rows.length === 1) this.options.onLoss(1, (error as Error)?.message ?? String(error));
      // One bad row must not cost the whole batch: write them one by one, losing only the bad ones.
      else for (const row of rows) await this.writeWithRetry([row]);
    }
  }
}
