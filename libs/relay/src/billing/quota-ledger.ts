import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { runOutsideTransactions } from '@gw/database';
import { LogService } from '@gw/log';
import { MysqlLedger, type MysqlPool } from './mysql-ledger.js';
import { PostgresLedger } from './postgres-ledger.js';
import {
  RESERVATION_FORGET_WHERE,
  forgetReservationsPlan,
  type LeanLedger,
  releasePlan,
  reservePlan,
  settlePlan,
  type LedgerStep,
  type Plan,
  type ReserveOutcome,
  type SettleOutcome,
  type StepResult,
} from './ledger-plans.js';

interface SqliteStatement {
  run(params: Record<string, number | string>): { changes: number };
  get(params: Record<string, number | string>): Record<string, unknown> | undefined;
}
interface SqliteDatabase {
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
  /** Called inside another transaction, the wrapper becomes a SAVEPOINT. */
  transaction<A, T>(fn: (arg: A) => T): ((arg: A) => T) & { immediate(arg: A): T };
}

interface SqliteJob {
  plan: () => Plan<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  value?: unknown;
  error?: unknown;
}

class Rollback<R> {
  constructor(readonly value: R) {}
}

const DEADLOCK = /deadlock|ER_LOCK_DEADLOCK|40P01|40001|ER_LOCK_WAIT_TIMEOUT/i;
const MAX_ATTEMPTS = 4;
/** Settled reservations are removed in batches, after the log rows written before them are flushed. */
const FORGET_INTERVAL_MS = 1000;
const FORGET_BATCH = 500;

/**
 * Quota movements of the relay (users.quota, tokens.remain_quota/used_quota, users.used_quota and
 * request_count), each one transaction of conditional UPDATEs. On SQLite the plan runs synchronously
 * inside a better-sqlite3 transaction (plans of one event-loop turn share it, see run()), so no other
 * statement can interleave (TypeORM shares one connection between all callers there); on MySQL/PostgreSQL it runs on its own pooled connection,
 * retried on a deadlock.
 */
@Injectable()
export class QuotaLedger implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('QuotaLedger');
  /** This instance's id in ledger_owners and on its reservations. */
  readonly owner = randomUUID();
  /** Settled requests whose reservation row waits for their log row to be flushed. */
  private settledIds: string[] = [];
  private forgetTimer?: NodeJS.Timeout;
  private forgetting: Promise<void> = Promise.resolve();
  private readonly statements = new Map<string, SqliteStatement>();
  /**
   * The transaction wrappers, built once (better-sqlite3 prepares their statements per wrapper): one plan
   * (its own BEGIN IMMEDIATE … COMMIT, or a SAVEPOINT when called inside the batch's transaction), and a
   * batch of plans.
   */
  private readonly sqlitePlan?: ((plan: Plan<unknown>) => unknown) & { immediate(plan: Plan<unknown>): unknown };
  private readonly sqliteBatch?: { immediate(jobs: SqliteJob[]): void };
  private readonly sqliteDb?: SqliteDatabase;
  /** MySQL/MariaDB and PostgreSQL: the lean path for the relay's own reservations (mysql-ledger.ts, postgres-ledger.ts). */
  private readonly lean?: LeanLedger;
  /** Plans waiting for the next batch (see run()). */
  private queue: SqliteJob[] = [];

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly logs: LogService,
  ) {
    if (dataSource.options.type === 'mysql') {
      // The driver's pool exists once the data source is initialised, which happens before any request.
      const driver = dataSource.driver as unknown as { pool?: MysqlPool };
      this.lean = new MysqlLedger({
        execute: (sql, values, callback) => driver.pool!.execute(sql, values, callback),
        getConnection: (callback) => driver.pool!.getConnection(callback),
      });
    }
    if (dataSource.options.type === 'postgres') {
      const driver = dataSource.driver as unknown as { master?: ConstructorParameters<typeof PostgresLedger>[0] };
      this.lean = new PostgresLedger({ connect: () => driver.master!.connect() });
    }
    if (dataSource.options.type === 'better-sqlite3') {
      const db = (dataSource.driver as unknown as { databaseConnection: SqliteDatabase }).databaseConnection;
      this.sqliteDb = db;
      const sqlitePlan = db.transaction((steps: Plan<unknown>) => {
        let input: StepResult;
        for (;;) {
          const next = steps.next(input);
          if (next.done) {
            if (!next.value.commit) throw new Rollback(next.value.value);
            return next.value.value;
          }
          input = this.execSqlite(db, next.value);
        }
      });
      this.sqlitePlan = sqlitePlan;
      this.sqliteBatch = db.transaction((jobs: SqliteJob[]) => {
        // Each plan in a savepoint: a refused plan rolls back alone.
        for (const job of jobs) {
          try {
            job.value = sqlitePlan(job.plan());
          } catch (error) {
            if (error instanceof Rollback) job.value = error.value;
            else job.error = error;
          }
        }
      });
    }
  }

  onModuleInit(): void {
    this.forgetTimer = setInterval(() => void this.forgetSettled(), FORGET_INTERVAL_MS);
    this.forgetTimer.unref();
  }

  /** After the pipeline drained: the last settled reservations are removed once their log rows are written. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.forgetTimer);
    await this.forgetSettled();
  }

  /**
   * Takes `amount` from the user and the token. With a request id the reservation is also recorded
   * durably in the same commit, so a crash before the settle cannot lose it (see ReservationRecovery).
   */
  reserve(userId: number, tokenId: number, amount: number, requestId?: string): Promise<ReserveOutcome> {
    if (requestId !== undefined && this.lean) return this.lean.reserve(userId, tokenId, amount, requestId, this.owner);
    const key = requestId === undefined ? undefined : { requestId, owner: this.owner };
    return this.run(() => reservePlan(userId, tokenId, amount, key));
  }

  /** Gives a reservation back; false when the request's reservation was no longer open (settled or refunded). */
  async release(userId: number, tokenId: number, amount: number, requestId?: string): Promise<boolean> {
    if (requestId !== undefined && this.lean) {
      const released = await this.lean.release(userId, tokenId, amount, requestId);
      // The refunded row is removed with the next batch.
      if (released) this.settledIds.push(requestId);
      return released;
    }
    return this.run(() => releasePlan(userId, tokenId, amount, requestId));
  }

  /**
   * Applies the real price in full (docs/billing.md): an extra charge the balances cannot cover takes
   * them below zero and is reported as the shortfall. undefined when the request's reservation was no
   * longer open (the recovery job refunded it), so nothing is charged twice.
   */
  async settle(userId: number, tokenId: number, reserved: number, actual: number, requestId?: string): Promise<SettleOutcome | undefined> {
    const outcome =
      requestId !== undefined && this.lean
        ? await this.lean.settle(userId, tokenId, reserved, actual, requestId)
        : await this.run(() => settlePlan(userId, tokenId, reserved, actual, requestId));
    if (outcome && requestId !== undefined) this.settledIds.push(requestId);
    if (outcome && outcome.shortfall > 0)
      this.logger.warn(`user ${userId} token ${tokenId}: charged ${actual}, ${outcome.shortfall} beyond the balance (now in debt)`);
    return outcome;
  }

  /**
   * Removes the reservations of settled requests once every log row recorded before now is written: a
   * crash in between leaves the row, and the recovery job writes the missing log row from it.
   */
  forgetSettled(): Promise<void> {
    const run = this.forgetting.then(async () => {
      if (this.settledIds.length === 0) return;
      const ids = this.settledIds;
      this.settledIds = [];
      await this.logs.flush();
      for (let i = 0; i < ids.length; i += FORGET_BATCH) {
        const batch = ids.slice(i, i + FORGET_BATCH);
        await this.forget(batch).catch((e: Error) => this.logger.warn(`removing ${batch.length} settled reservation(s): ${e.message}`));
      }
    });
    this.forgetting = run.catch(() => undefined);
    return run;
  }

  private forget(ids: string[]): Promise<unknown> {
    if (this.sqliteBatch) return this.run(() => forgetReservationsPlan(ids));
    // One statement for the batch on the server databases.
    const [sql, params] = this.dataSource.driver.escapeQueryWithParameters(
      `DELETE FROM quota_reservations WHERE request_id IN (:...ids) AND ${RESERVATION_FORGET_WHERE}`,
      { ids },
    );
    return this.dataSource.query(sql, params);
  }

  /**
   * Runs another module's plan in one ledger transaction (the task module refunds a failed task and
   * marks it refunded in the same commit, so the refund happens exactly once).
   */
  transact<R>(plan: () => Plan<R>): Promise<R> {
    return this.run(plan);
  }

  /**
   * On SQLite, plans issued in the same event-loop turn are committed together: one BEGIN IMMEDIATE …
   * COMMIT for the batch, each plan in its own savepoint, run one after another. Every conditional
   * update still sees the balances left by the plans before it, so nothing changes for concurrent
   * spending; under load a commit (the costly part) is shared by many requests. A promise settles only
   * once its batch has committed.
   */
  private run<R>(plan: () => Plan<R>): Promise<R> {
    if (this.sqliteBatch) {
      return new Promise<R>((resolve, reject) => {
        this.queue.push({ plan, resolve: resolve as (value: unknown) => void, reject });
        if (this.queue.length === 1) setImmediate(this.flushSqlite);
      });
    }
    return this.runPooled(plan);
  }

  private readonly flushSqlite = (): void => {
    const jobs = this.queue;
    this.queue = [];
    // Never inside another module's open transaction: its rollback would undo these charges.
    void runOutsideTransactions(this.dataSource, this.sqliteDb!, () => this.commitSqlite(jobs)).catch((error: unknown) => {
      for (const job of jobs) job.reject(error);
    });
  };

  private commitSqlite(jobs: SqliteJob[]): void {
    if (jobs.length === 1) {
      const job = jobs[0]!;
      try {
        job.resolve(this.sqlitePlan!.immediate(job.plan()));
      } catch (error) {
        if (error instanceof Rollback) job.resolve(error.value);
        else job.reject(error);
      }
      return;
    }
    try {
      this.sqliteBatch!.immediate(jobs);
    } catch (error) {
      // BEGIN or COMMIT failed: nothing of the batch was written.
      for (const job of jobs) job.reject(error);
      return;
    }
    for (const job of jobs) {
      if (job.error !== undefined) job.reject(job.error);
      else job.resolve(job.value);
    }
  }

  private execSqlite(db: SqliteDatabase, step: LedgerStep): StepResult {
    let statement = this.statements.get(step.sql);
    if (!statement) {
      statement = db.prepare(step.sql);
      this.statements.set(step.sql, statement);
    }
    return step.read ? statement.get(step.params) : statement.run(step.params).changes;
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
