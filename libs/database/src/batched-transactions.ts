import type { Statement } from 'better-sqlite3';
import type { DataSource, EntityManager } from 'typeorm';
import { type LedgerStep, type Plan, Rollback, type StepResult } from './plan.js';
import { type SqliteHandle, sqliteHandleOf } from './raw-handles.js';
import { runOutsideTransactions } from './sqlite-transactions.js';
import { sqliteWriteGateOf } from './sqlite-write-gate.js';

interface SqliteWrappers {
  db: SqliteHandle;
  savepoint: ((job: SqliteJob) => unknown) & { immediate(job: SqliteJob): unknown };
  batch: { immediate(jobs: SqliteJob[]): void };
  /** The connection's busy timeout, put back after a batch tried for the write lock without one. */
  busyTimeoutMs: number;
}

interface SqliteJob {
  work: (db: SqliteHandle) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  value?: unknown;
  error?: unknown;
}

const DEADLOCK = /deadlock|ER_LOCK_DEADLOCK|40P01|40001|ER_LOCK_WAIT_TIMEOUT/i;
const MAX_ATTEMPTS = 4;

/**
 * While another process (a second worker, another instance) holds the SQLite write lock, a batch tries again
 * this often, off the event loop, for up to LOCK_POLL_MS; only then does it wait in SQLite's busy handler.
 */
const LOCK_RETRY_MS = 1;
const LOCK_POLL_MS = 50;

const runners = new WeakMap<DataSource, BatchedTransactions>();

/** The one transaction runner of a data source (one SQLite batch queue per process, shared by every lib). */
export function batchedTransactionsOf(dataSource: DataSource): BatchedTransactions {
  let runner = runners.get(dataSource);
  if (!runner) {
    runner = new BatchedTransactions(dataSource);
    runners.set(dataSource, runner);
  }
  return runner;
}

/**
 * Short write transactions of the hot paths (the ledger's balance movements, the log writer's batches).
 * On SQLite, work issued in the same event-loop turn is committed together: one BEGIN IMMEDIATE … COMMIT
 * for the batch, each piece in its own savepoint, run one after another, synchronously on the raw
 * better-sqlite3 connection, so no other statement can interleave (TypeORM shares that one connection
 * between all callers). Every conditional update still sees what the pieces before it left; under load
 * a commit (the costly part) is shared by many requests. A promise settles only once its batch has
 * committed; a piece that throws (or throws Rollback) rolls back alone. On MySQL/PostgreSQL a plan runs
 * on its own pooled connection, retried on a deadlock.
 */
export class BatchedTransactions {
  private queue: SqliteJob[] = [];
  private readonly statements = new Map<string, Statement>();
  /** Built on first use (the connection exists once the data source is initialised). */
  private wrappers?: SqliteWrappers | null;
  /** Set by the transactions' first line: a SQLITE_BUSY before it is the BEGIN's, so no piece has run. */
  private began = false;
  /** When the queued batch first found the write lock held by another process; undefined while it has not. */
  private lockBusySince?: number;

  constructor(private readonly dataSource: DataSource) {}

  /** The raw SQLite connection this runner writes on; undefined on MySQL/PostgreSQL. */
  get sqlite(): SqliteHandle | undefined {
    return this.sqliteWrappers()?.db;
  }

  /**
   * The transaction wrappers, built once (better-sqlite3 prepares their statements per wrapper): one
   * piece (its own BEGIN IMMEDIATE … COMMIT, or a SAVEPOINT inside the batch's transaction), and a batch.
   */
  private sqliteWrappers(): SqliteWrappers | undefined {
    if (this.wrappers !== undefined) return this.wrappers ?? undefined;
    const db = sqliteHandleOf(this.dataSource);
    if (!db) {
      // Another database: settled for good; SQLite not yet open: asked again next time.
      if (this.dataSource.options.type !== 'better-sqlite3') this.wrappers = null;
      return undefined;
    }
    const savepoint = db.transaction((job: SqliteJob) => {
      this.began = true;
      return job.work(db);
    });
    const batch = db.transaction((jobs: SqliteJob[]) => {
      this.began = true;
      for (const job of jobs) {
        try {
          job.value = savepoint(job);
        } catch (error) {
          if (error instanceof Rollback) job.value = error.value;
          else job.error = error;
        }
      }
    });
    this.wrappers = { db, savepoint, batch, busyTimeoutMs: Number(db.pragma('busy_timeout', { simple: true })) };
    return this.wrappers;
  }

  /** Runs a plan in one transaction: batched on SQLite, on a pooled connection elsewhere. */
  run<R>(plan: () => Plan<R>): Promise<R> {
    if (this.sqlite) return this.runSqlite((db) => this.execPlan(db, plan()));
    return this.runPooled(plan);
  }

  /**
   * SQLite only: synchronous `work` on the raw connection, in the next batch (see above). Throw Rollback
   * to undo the piece and resolve with its value.
   */
  runSqlite<T>(work: (db: SqliteHandle) => T): Promise<T> {
    if (!this.sqliteWrappers()) return Promise.reject(new Error('runSqlite needs an open SQLite data source'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(this.flush);
    });
  }

  /**
   * Runs a plan's steps in the caller's open transaction (`manager` of a `transaction()`), so they commit
   * with the caller's own writes. A plan that asks to roll back throws Rollback, which rolls the caller's
   * transaction back.
   */
  async runIn<R>(manager: EntityManager, plan: Plan<R>): Promise<R> {
    let input: StepResult;
    for (;;) {
      const next = plan.next(input);
      if (next.done) {
        if (!next.value.commit) throw new Rollback(next.value.value);
        return next.value.value;
      }
      input = await this.queryStep(manager, next.value);
    }
  }

  /**
   * Commits the queued jobs once no log cleanup worker holds the write lock (the gate); jobs queued while it
   * waits join the batch. When another process holds SQLite's write lock, the batch goes back to the head of
   * the queue and is tried again LOCK_RETRY_MS later, joined by the jobs queued meanwhile.
   */
  private readonly flush = (): void => {
    const db = this.sqlite!;
    void sqliteWriteGateOf(db).run(() => {
      const jobs = this.queue;
      this.queue = [];
      // Never inside another module's open transaction: its rollback would undo these writes.
      return runOutsideTransactions(this.dataSource, db, () => this.commit(jobs)).then(
        (committed) => {
          if (committed) return;
          this.queue = jobs.concat(this.queue);
          // Jobs queued meanwhile have a flush of their own coming; otherwise the retry is this one's.
          if (this.queue.length === jobs.length) setTimeout(this.flush, LOCK_RETRY_MS);
        },
        (error: unknown) => {
          for (const job of jobs) job.reject(error);
        },
      );
    });
  };

  /**
   * Commits `jobs` in one transaction and settles their promises; false, with nothing run, if another process
   * holds the write lock and the batch is still within its LOCK_POLL_MS. Without this, BEGIN IMMEDIATE would
   * wait in SQLite's busy handler, which sleeps 1, 2, 5 ms … synchronously: every request of this process
   * stands still while the other worker's commit, well under a millisecond, ends. Polling instead keeps the
   * event loop serving, and the jobs that arrive meanwhile share the commit.
   */
  private commit(jobs: SqliteJob[]): boolean {
    const wrappers = this.wrappers!;
    const now = Date.now();
    const polling = this.lockBusySince === undefined || now - this.lockBusySince < LOCK_POLL_MS;
    this.began = false;
    // exec, not a kept statement: SQLite applies a busy_timeout pragma when it compiles it, not when it runs.
    if (polling) wrappers.db.exec('PRAGMA busy_timeout = 0');
    try {
      if (jobs.length === 1) this.commitOne(jobs[0]!, polling);
      else this.commitBatch(jobs, polling);
    } catch {
      // Only a polling BEGIN's SQLITE_BUSY gets here: nothing ran, the jobs wait for the next try.
      this.lockBusySince ??= now;
      return false;
    } finally {
      if (polling) wrappers.db.exec(`PRAGMA busy_timeout = ${wrappers.busyTimeoutMs}`);
    }
    this.lockBusySince = undefined;
    return true;
  }

  private commitOne(job: SqliteJob, polling: boolean): void {
    try {
      job.resolve(this.wrappers!.savepoint.immediate(job));
    } catch (error) {
      if (polling && this.isLockBusy(error)) throw error;
      if (error instanceof Rollback) job.resolve(error.value);
      else job.reject(error);
    }
  }

  private commitBatch(jobs: SqliteJob[], polling: boolean): void {
    try {
      this.wrappers!.batch.immediate(jobs);
    } catch (error) {
      if (polling && this.isLockBusy(error)) throw error;
      // BEGIN or COMMIT failed: nothing of the batch was written.
      for (const job of jobs) job.reject(error);
      return;
    }
    for (const job of jobs) {
      if (job.error !== undefined) job.reject(job.error);
      else job.resolve(job.value);
    }
  }

  /** Whether `error` is a BEGIN that found the write lock taken (no piece ran). */
  private isLockBusy(error: unknown): boolean {
    return !this.began && (error as { code?: unknown }).code === 'SQLITE_BUSY';
  }

  /** A plan, synchronously, inside the piece's savepoint. */
  private execPlan<R>(db: SqliteHandle, steps: Plan<R>): R {
    let input: StepResult;
    for (;;) {
      const next = steps.next(input);
      if (next.done) {
        if (!next.value.commit) throw new Rollback(next.value.value);
        return next.value.value;
      }
      input = this.execSqlite(db, next.value);
    }
  }

  private execSqlite(db: SqliteHandle, step: LedgerStep): StepResult {
    let statement = this.statements.get(step.sql);
    if (!statement) {
      statement = db.prepare(step.sql);
      this.statements.set(step.sql, statement);
    }
    return step.read ? (statement.get(step.params) as Record<string, unknown> | undefined) : statement.run(step.params).changes;
  }

  private async queryStep(manager: EntityManager, step: LedgerStep): Promise<StepResult> {
    const [sql, params] = this.dataSource.driver.escapeQueryWithParameters(step.sql, step.params);
    const runner = manager.queryRunner;
    if (!runner) throw new Error('runIn needs the manager of an open transaction');
    const result = await runner.query(sql, params, true);
    return step.read ? (result.records as Record<string, unknown>[])[0] : (result.affected ?? 0);
  }

  private async runPooled<R>(plan: () => Plan<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      const runner = this.dataSource.createQueryRunner();
      try {
        await runner.connect();
        await runner.startTransaction();
        const steps = plan();
        let input: StepResult;
        for (;;) {
          const next = steps.next(input);
          if (next.done) {
            if (next.value.commit) await runner.commitTransaction();
            else await runner.rollbackTransaction();
            return next.value.value;
          }
          const [sql, params] = this.dataSource.driver.escapeQueryWithParameters(next.value.sql, next.value.params);
          const result = await runner.query(sql, params, true);
          input = next.value.read ? (result.records as Record<string, unknown>[])[0] : (result.affected ?? 0);
        }
      } catch (error) {
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        if (attempt < MAX_ATTEMPTS && DEADLOCK.test(String((error as Error).message ?? error))) continue;
        throw error;
      } finally {
        await runner.release();
      }
    }
  }
}
