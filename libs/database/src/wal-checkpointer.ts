import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { WAL_CHECKPOINT_WORKER_SOURCE } from './wal-checkpoint-worker-source.js';

/** The part of a better-sqlite3 connection the checkpointer touches. */
export interface MainSqliteConnection {
  readonly name: string;
  readonly memory: boolean;
  readonly open: boolean;
  pragma(source: string): unknown;
}

/** How the worker paces its checkpoints (see the worker source); the defaults come from the benchmark. */
export interface CheckpointPacing {
  /** Shortest pause between checkpoints, under the heaviest writes. */
  minIntervalMs: number;
  /** Longest pause, when the database is idle or barely written. */
  maxIntervalMs: number;
  /** New WAL frames each checkpoint should find: SQLite's own automatic threshold. */
  targetFrames: number;
  /** Extra checkpoints right after one, for the frames committed while it ran. */
  chaseRounds: number;
}

export interface WalCheckpointerOptions {
  pacing?: Partial<CheckpointPacing>;
  /** Where the worker's problems go; nothing is ever thrown into the caller. */
  warn: (message: string) => void;
}

const DEFAULT_PACING: CheckpointPacing = { minIntervalMs: 10, maxIntervalMs: 100, targetFrames: 1000, chaseRounds: 2 };
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;
/**
 * The main connection's own checkpoint becomes a safety net: it bounds the WAL (10000 pages of 4 KiB ≈
 * 40 MB) when the worker is stalled, and it is what restarts the log while writes never pause for the few
 * milliseconds a worker checkpoint takes (SQLite restarts the log only once every frame is copied).
 * Because the worker has by then copied nearly everything, that checkpoint is short.
 */
const SAFETY_AUTOCHECKPOINT = 10_000;
/**
 * Above the WAL size the safety net allows, so a busy log is reused in place instead of being cut back
 * and regrown on every restart (the cut alone took ~10 ms on the event loop in the benchmark); a log
 * swollen past it by a huge transaction or a long-lived reader is cut back to it after the next restart.
 */
const JOURNAL_SIZE_LIMIT_BYTES = 48 * 1024 * 1024;
/** Only the worker thread waits on this; it never blocks the event loop. */
const WORKER_BUSY_TIMEOUT_MS = 1000;
/**
 * How long a TRUNCATE checkpoint waits for the writer lock and the readers. While it holds the writer lock
 * a commit on the main connection waits on the event loop, so this stays short: busy, it gives up.
 */
const TRUNCATE_BUSY_TIMEOUT_MS = 50;
/** A checkpoint in progress is allowed to finish; past this the thread is terminated. */
const STOP_GRACE_MS = 5000;

type WorkerMessage = { kind: 'failing'; message: string } | { kind: 'recovered' } | { kind: 'truncated'; id: number; done: boolean };

/**
 * Moves WAL checkpoints of a SQLite file off the event loop: a worker thread with its own connection runs
 * `PRAGMA wal_checkpoint(PASSIVE)`, which never blocks the main connection's writer. SQLite's automatic
 * checkpoint otherwise runs inside whichever commit crosses 1000 WAL pages, costing about a third of
 * every small commit and a multi-millisecond stall for one request.
 *
 * No TRUNCATE or RESTART checkpoint runs on a timer: both take the writer lock, so a commit on the main
 * connection would sleep in its busy handler on the event loop. Only truncate() asks for one, once, after
 * a large delete. Closing the last connection (the main
 * one, after stop()) checkpoints everything and deletes the WAL on its own.
 */
export class WalCheckpointer {
  private stopping?: Promise<void>;
  private exited = false;
  private nextTruncateId = 0;
  private readonly truncations = new Map<number, (done: boolean) => void>();

  private constructor(
    private readonly main: MainSqliteConnection,
    private readonly worker: Worker,
    warn: (message: string) => void,
  ) {
    worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'truncated') this.settleTruncation(message.id, message.done);
      else if (message.kind === 'failing') warn(`WAL checkpoints in the worker are failing: ${message.message}`);
      else warn('WAL checkpoints in the worker work again');
    });
    // An uncaught error ends the worker; the process carries on (see the exit handler).
    worker.on('error', (error) => warn(`WAL checkpoint worker crashed: ${error.message}`));
    worker.once('exit', (code) => {
      this.exited = true;
      for (const id of [...this.truncations.keys()]) this.settleTruncation(id, false);
      if (this.stopping) return;
      this.restoreAutocheckpoint();
      warn(`WAL checkpoint worker exited (code ${code}); checkpoints are back on the main connection`);
    });
    // Never the reason the process stays alive: a script that forgets to close the app still exits.
    worker.unref();
  }

  /** Starts checkpointing `main`'s file, or returns undefined for an in-memory database (it has no WAL). */
  static start(main: MainSqliteConnection, options: WalCheckpointerOptions): WalCheckpointer | undefined {
    if (main.memory || !main.name) return undefined;
    main.pragma(`wal_autocheckpoint = ${SAFETY_AUTOCHECKPOINT}`);
    main.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
    // Resolved here: an eval'd worker would resolve packages from the working directory instead.
    const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WAL_CHECKPOINT_WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: main.name,
        driverPath,
        ...DEFAULT_PACING,
        ...options.pacing,
        busyTimeoutMs: WORKER_BUSY_TIMEOUT_MS,
        truncateBusyTimeoutMs: TRUNCATE_BUSY_TIMEOUT_MS,
      },
    });
    return new WalCheckpointer(main, worker, options.warn);
  }

  /** False once the worker thread has ended, whether stopped or failed. */
  get running(): boolean {
    return !this.exited;
  }

  /**
   * Cuts the WAL file to zero bytes from the worker (a TRUNCATE checkpoint), for after a large delete: the
   * log otherwise keeps journal_size_limit bytes on disk for good. Resolves true when the log was cut,
   * false when the database was busy or the worker is gone; the file is then no worse than before.
   */
  truncate(): Promise<boolean> {
    if (this.exited || this.stopping) return Promise.resolve(false);
    const id = ++this.nextTruncateId;
    return new Promise((resolve) => {
      this.truncations.set(id, resolve);
      this.worker.postMessage({ kind: 'truncate', id });
    });
  }

  private settleTruncation(id: number, done: boolean): void {
    const resolve = this.truncations.get(id);
    this.truncations.delete(id);
    resolve?.(done);
  }

  /**
   * Closes the worker's connection, waits for the thread to end and hands checkpoints back to the main
   * connection. Safe to call more than once.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopWorker().finally(() => this.restoreAutocheckpoint());
    return this.stopping;
  }

  private async stopWorker(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('stop');
    let grace: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (grace = setTimeout(() => resolve('timeout'), STOP_GRACE_MS)));
    try {
      if ((await Promise.race([exited, timedOut])) === 'timeout') await this.worker.terminate();
    } finally {
      clearTimeout(grace);
    }
  }

  private restoreAutocheckpoint(): void {
    try {
      if (this.main.open) this.main.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
    } catch {
      // Only reachable while the connection is closing; the safety threshold still bounds the WAL.
    }
  }
}
