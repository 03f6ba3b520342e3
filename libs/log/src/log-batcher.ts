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
}

/**
 * Buffers rows off the request path and writes them in batches: when its owner calls `flush()`
 * (periodically) or as soon as maxRows are waiting. Flushes run one after another. A row the database
 * refuses (after a retry, on its own) is reported lost; rows the database cannot take at all (it does not
 * answer) stay buffered, in order, for the next flush, up to maxPending. Never throws.
 */
export class LogBatcher<T> {
  private pending: T[] = [];
  private chain: Promise<boolean> = Promise.resolve(true);
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
    while (this.pending.length > 0) {
      const rows = this.pending.splice(0, this.options.maxRows);
      const left = await this.writeRows(rows);
      if (left.length > 0) {
        this.pending.unshift(...left);
        return false;
      }
    }
    return true;
  }

  /**
   * Writes rows, trying a failed write once more; returns the ones left for a later flush because the
   * database did not answer. After a failure the outcome is uncertain (the server may have committed what
   * it never answered), so each later try first asks whether the rows are there.
   */
  private async writeRows(rows: T[], uncertain = false): Promise<T[]> {
    let failure: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        if (uncertain && (await this.options.committed?.(rows))) return [];
        await this.options.write(rows);
        return [];
      } catch (error) {
        // A transient failure (lock timeout, dropped connection) usually passes on a second try.
        failure = error;
        uncertain = true;
      }
    }
    // Both tries failed: when the database does not answer even the check, the rows wait for it.
    try {
      if (await this.options.committed?.(rows)) return [];
    } catch {
      return rows;
    }
    if (rows.length === 1) {
      this.options.onLoss(1, (failure as Error)?.message ?? String(failure));
      return [];
    }
    // One bad row must not cost the whole batch: write them one by one, losing only the bad ones.
    for (let i = 0; i < rows.length; i++) {
      if ((await this.writeRows([rows[i]!], true)).length > 0) return rows.slice(i);
    }
    return [];
  }
}
