import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { BatchSizer, yieldToEventLoop } from './batch-sizer.js';
import { LogPurgeRepository } from './log-purge.repository.js';
import { SqlitePurgeError, SqlitePurgeWorker } from './sqlite-purge-worker.js';

/**
 * On the main connection (an in-memory SQLite database, which no other connection can open), one batch should
 * block SQLite's synchronous driver (and so every request) for about this long.
 */
const SQLITE_BATCHES = { targetMs: 5, min: 50, max: 5000 };
/**
 * MySQL and PostgreSQL drivers do not block the event loop, and each batch is its own commit (a log flush on
 * the server): 5 ms batches of 50 rows ran at a few hundred rows a second there. A batch of about 100 ms holds
 * its row locks on the oldest ids only, far from where new logs are inserted.
 */
const SERVER_BATCHES = { targetMs: 100, min: 500, max: 10_000 };
/**
 * SQLite pages handed back per step of the incremental vacuum, sized like the delete batches: moving a page
 * rewrites it and its parent's pointers, so 1024 pages (4 MiB) took tens of milliseconds on a busy machine.
 */
const MIN_VACUUM_PAGES = 16;
const MAX_VACUUM_PAGES = 1024;
/** Tries at cutting the WAL back to zero after a cleanup, and the pause between two (the database was busy). */
const WAL_TRUNCATE_TRIES = 5;
const WAL_TRUNCATE_RETRY_MS = 200;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PurgeProgress {
  /** Cleanups running now. */
  running: number;
  /** Rows deleted by the running cleanups so far. */
  deleted: number;
}

/**
 * Deletes old log rows without blocking the gateway: bounded batches found through the created_at index and
 * deleted by id. On a SQLite file the batches run on a worker thread with its own connection
 * (SqlitePurgeWorker), so the event loop never waits for them; a relay write waits, off the event loop, for
 * the piece the worker is deleting and its commit (the write gate, about a millisecond or two). Elsewhere
 * (MySQL, PostgreSQL, whose drivers do not block the loop, and an in-memory SQLite database) they run here
 * with a turn of the event loop between batches. On SQLite the freed pages are then returned to the file system a few at a time when the file allows it (auto_vacuum =
 * INCREMENTAL, the default of databases the gateway creates); otherwise SQLite reuses them for new rows, so
 * the file stops growing instead of shrinking. Last, the WAL file, which a busy gateway keeps at
 * journal_size_limit (48 MB) for good, is cut to zero bytes by the checkpoint worker, so the space comes back
 * from it too.
 */
@Injectable()
export class LogPurgeService implements OnModuleDestroy {
  private readonly logger = new Logger('LogPurge');
  private readonly state: PurgeProgress = { running: 0, deleted: 0 };
  private vacuumHintGiven = false;
  private readonly workers = new Set<SqlitePurgeWorker>();

  constructor(private readonly repo: LogPurgeRepository) {}

  get progress(): PurgeProgress {
    return { ...this.state };
  }

  /** Deletes every row created before `before`; returns how many. */
  async purgeBefore(before: number): Promise<number> {
    this.state.running++;
    if (this.state.running === 1) this.state.deleted = 0;
    try {
      const sqlite = this.repo.sqliteFile();
      if (sqlite) return await this.purgeInWorker(sqlite, before);
      const deleted = await this.repo.withLargeSqliteCache(() => this.deleteInBatches(before));
      if (deleted > 0) await this.reclaimSqliteSpace();
      return deleted;
    } finally {
      this.state.running--;
    }
  }

  /** Ends running cleanups after their current batch, so the app closes without waiting for millions of rows. */
  onModuleDestroy(): void {
    for (const worker of this.workers) worker.stop();
  }

  /** The deletes and the incremental vacuum on a worker thread; the WAL cut (a checkpoint) from here after. */
  private async purgeInWorker({ file, gate }: { file: string; gate: Int32Array }, before: number): Promise<number> {
    let counted = 0;
    const worker = new SqlitePurgeWorker(file, before, gate, (deleted) => {
      this.state.deleted += deleted - counted;
      counted = deleted;
    });
    this.workers.add(worker);
    try {
      const deleted = await worker.finished;
      this.state.deleted += deleted - counted;
      if (deleted > 0) await this.truncateWal();
      return deleted;
    } catch (error) {
      const deleted = error instanceof SqlitePurgeError ? error.deleted : counted;
      this.logger.warn(`log cleanup stopped after ${deleted} row(s): ${(error as Error).message}`);
      throw error;
    } finally {
      this.workers.delete(worker);
    }
  }

  private async deleteInBatches(before: number): Promise<number> {
    let deleted = 0;
    const { targetMs, min, max } = this.repo.isSqlite ? SQLITE_BATCHES : SERVER_BATCHES;
    const sizer = new BatchSizer(targetMs, min, max);
    for (;;) {
      let started = performance.now();
      const limit = sizer.current;
      const ids = await this.repo.oldestIds(before, limit);
      if (ids.length === 0) break;
      // The read and the delete are two slices: a request waiting in the event loop runs between them. The
      // batch's cost is the two slices' time, not the requests' in between.
      let elapsed = performance.now() - started;
      await yieldToEventLoop();
      started = performance.now();
      const count = await this.repo.deleteIds(ids, before);
      elapsed += performance.now() - started;
      deleted += count;
      this.state.deleted += count;
      sizer.record(elapsed);
      await yieldToEventLoop();
      if (ids.length < limit && count === ids.length) break;
      // Rest as long as the batch took: the cleanup never holds more than about half of the event loop, so a
      // request that needs several database steps finds the loop free at most of them.
      if (this.repo.isSqlite) await pause(elapsed);
    }
    return deleted;
  }

  private async reclaimSqliteSpace(): Promise<void> {
    if (!this.repo.isSqlite) return;
    await this.vacuumFreePages();
    await this.truncateWal();
  }

  /** Bounded retries: a busy database (a long transaction) makes the worker give up quickly, not wait. */
  private async truncateWal(): Promise<void> {
    for (let attempt = 1; attempt <= WAL_TRUNCATE_TRIES; attempt++) {
      const cut = this.repo.sqliteTruncateWal();
      if (!cut || (await cut)) return;
      if (attempt < WAL_TRUNCATE_TRIES) await pause(WAL_TRUNCATE_RETRY_MS);
    }
  }

  private async vacuumFreePages(): Promise<void> {
    if (!(await this.repo.sqliteIncrementalVacuum())) {
      if (!this.vacuumHintGiven && (await this.repo.sqliteFreePages()) > 0) {
        this.vacuumHintGiven = true;
        this.logger.log(
          'the SQLite file (auto_vacuum = NONE: made by new-api or an older build) keeps the space of deleted logs for new rows; to have cleanups shrink it, run "npm run db:sqlite-vacuum" once while the gateway is stopped',
        );
      }
      return;
    }
    // Bounded: the free list only shrinks, and a step that frees nothing ends the loop. Paced as the delete is.
    const sizer = new BatchSizer(SQLITE_BATCHES.targetMs, MIN_VACUUM_PAGES, MAX_VACUUM_PAGES);
    let free = await this.repo.sqliteFreePages();
    while (free > 0) {
      const started = performance.now();
      await this.repo.sqliteVacuumPages(sizer.current);
      const elapsed = performance.now() - started;
      sizer.record(elapsed);
      await yieldToEventLoop();
      const left = await this.repo.sqliteFreePages();
      if (left >= free) break;
      free = left;
      await pause(elapsed);
    }
  }
}
