import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { WRITE_INTENT } from '@gw/database';
import { SQLITE_PURGE_WORKER_SOURCE } from './sqlite-purge-worker-source.js';

/** How the worker sizes its transactions and rests between them (see the worker source). */
export interface SqlitePurgePacing {
  /** The longest one transaction holds the write lock: what a relay write may wait when it is not announced. */
  holdMs: number;
  /** Time of one piece of a transaction: what an announced relay write waits at most (then the worker commits). */
  pieceMs: number;
  /** Rows read (outside the write lock) for the transactions that follow. */
  readRows: number;
  /** Rows in one piece, at least and at most. */
  minRows: number;
  maxRows: number;
  vacuumMinPages: number;
  vacuumMaxPages: number;
  /**
   * How long the worker's connection waits for the write lock (only the worker thread sleeps on it); past it the
   * transaction is tried again a second later, a few times.
   */
  busyTimeoutMs: number;
}

export const DEFAULT_SQLITE_PURGE_PACING: SqlitePurgePacing = {
  holdMs: 8,
  pieceMs: 0.5,
  readRows: 4096,
  minRows: 1,
  maxRows: 2048,
  vacuumMinPages: 4,
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
 * `before` in write transactions of a few milliseconds that give the lock up to the gateway's writes, then hands the freed pages back (incremental vacuum).
 * `onProgress` hears the running count after each batch. `stop()` ends it after the current batch.
 */
export class SqlitePurgeWorker {
  private readonly worker: Worker;
  readonly finished: Promise<number>;

  /**
   * `writeIntent`: the counter of the main connection's running writes (sqliteWriteIntentOf), so the worker
   * gives the lock up to them; without it the worker still holds the lock at most `holdMs` at a time.
   */
  constructor(
    file: string,
    before: number,
    onProgress: (deleted: number) => void,
    pacing: Partial<SqlitePurgePacing> = {},
    writeIntent?: Int32Array,
  ) {
    // Resolved here: an eval'd worker resolves packages from the working directory instead.
    const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(SQLITE_PURGE_WORKER_SOURCE, {
      eval: true,
      workerData: {
        file,
        driverPath,
        before,
        writeIntent,
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
      this.worker.once('exit', (code) => {
        // A thread that died holding the lock must not leave the gateway's writes waiting on its flag.
        if (writeIntent) {
          Atomics.store(writeIntent, WRITE_INTENT.workerHolds, 0);
          Atomics.notify(writeIntent, WRITE_INTENT.workerHolds);
        }
        reject(new SqlitePurgeError(`the cleanup worker exited (code ${code})`, deleted));
      });
    });
  }

  /** Asks the worker to end after its current batch; `finished` then resolves with the rows deleted so far. */
  stop(): void {
    this.worker.postMessage('stop');
  }
}
