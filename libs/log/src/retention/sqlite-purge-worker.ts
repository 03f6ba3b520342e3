import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SQLITE_PURGE_WORKER_SOURCE } from './sqlite-purge-worker-source.js';

/** How the worker sizes its batches and rests between them (see the worker source). */
export interface SqlitePurgePacing {
  /** Write-lock time one transaction aims at, unless a main-thread write cuts it short. */
  targetMs: number;
  /** Time one delete statement (a piece) aims at: the longest a main-thread write waits, with the commit. */
  pieceMs: number;
  /**
   * Rest after a transaction, as a multiple of the time it held the lock. Measured at 10 M rows on 2 cores: 2
   * (the worker busy a third of the time) took the relay's p95 during a cleanup from 2.0× to 1.6× idle, at
   * ~3,800 rows/s instead of ~4,500.
   */
  restRatio: number;
  /** Shortest time between two of the worker's own WAL checkpoints. */
  checkpointEveryMs: number;
  /** Rows per piece, at least and at most. */
  minRows: number;
  maxRows: number;
  vacuumMinPages: number;
  vacuumMaxPages: number;
  /**
   * How long the worker's connection waits for the write lock (only the worker thread sleeps on it); past it the
   * batch is tried again a second later, a few times.
   */
  busyTimeoutMs: number;
}

export const DEFAULT_SQLITE_PURGE_PACING: SqlitePurgePacing = {
  targetMs: 8,
  pieceMs: 1,
  restRatio: 2,
  checkpointEveryMs: 100,
  minRows: 20,
  maxRows: 5_000,
  vacuumMinPages: 16,
  vacuumMaxPages: 4096,
  busyTimeoutMs: 10_000,
};

/** Page cache of the worker's connection, in KiB (negative: a size): the index pages a batch touches. */
const WORKER_CACHE_KIB = -65_536;
/** Bytes of the file the worker reads through a memory map (a 10 M-row file is ~2 GB; the rest by read()). */
const WORKER_MMAP_BYTES = 4 * 2 ** 30;

type WorkerMessage =
  | { kind: 'progress'; deleted: number }
  | { kind: 'done'; deleted: number }
  | { kind: 'failed'; message: string; deleted: number };

/** A failed cleanup in the worker: the rows deleted before the failure stay deleted. */
export class SqlitePurgeError extends Error {
  constructor(
    message: string,
    readonly deleted: number,
  ) {
    super(message);
  }
}

/**
 * One cleanup of a SQLite log file on a worker thread with its own connection: deletes every row created before
 * `before` in write transactions of a few milliseconds, then hands the freed pages back (incremental vacuum).
 * `onProgress` hears the running count after each batch. `stop()` ends it after the current batch.
 */
export class SqlitePurgeWorker {
  private readonly worker: Worker;
  readonly finished: Promise<number>;

  constructor(
    file: string,
    before: number,
    gate: Int32Array,
    onProgress: (deleted: number) => void,
    pacing: Partial<SqlitePurgePacing> = {},
  ) {
    // Resolved here: an eval'd worker resolves packages from the working directory instead.
    const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(SQLITE_PURGE_WORKER_SOURCE, {
      eval: true,
      workerData: {
        file,
        driverPath,
        before,
        gate,
        cacheKib: WORKER_CACHE_KIB,
        mmapBytes: WORKER_MMAP_BYTES,
        ...DEFAULT_SQLITE_PURGE_PACING,
        ...pacing,
      },
    });
    this.finished = new Promise<number>((resolve, reject) => {
      let deleted = 0;
      this.worker.on('message', (message: WorkerMessage) => {
        deleted = message.deleted;
        if (message.kind === 'progress') onProgress(deleted);
        else if (message.kind === 'done') resolve(deleted);
        else reject(new SqlitePurgeError(message.message, deleted));
      });
      this.worker.once('error', (error) => reject(new SqlitePurgeError(error.message, deleted)));
      // After 'done' or 'failed' this settles nothing; before them it is a thread that ended without an answer.
      this.worker.once('exit', (code) => reject(new SqlitePurgeError(`the cleanup worker exited (code ${code})`, deleted)));
    });
  }

  /** Asks the worker to end after its current batch; `finished` then resolves with the rows deleted so far. */
  stop(): void {
    this.worker.postMessage('stop');
  }
}
