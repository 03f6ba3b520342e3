import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { headroomPlan, releasePlan, reservePlan, settlePlan, type LedgerStep, type Plan, type ReserveOutcome, type SettleOutcome, type StepResult } from './ledger-plans.js';

interface SqliteStatement {
  run(params: Record<string, number>): { changes: number };
  get(params: Record<string, number>): Record<string, unknown> | undefined;
}
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  transaction<A, T>(fn: (arg: A) => T): { immediate(arg: A): T };
}

class Rollback<R> {
  constructor(readonly value: R) {}
}

const DEADLOCK = /deadlock|ER_LOCK_DEADLOCK|40P01|40001|ER_LOCK_WAIT_TIMEOUT/i;
const MAX_ATTEMPTS = 4;
const CAPPED_SETTLE_ATTEMPTS = 5;

/**
 * Quota movements of the relay (users.quota, tokens.remain_quota/used_quota, users.used_quota and
 * request_count), each one transaction of conditional UPDATEs. On SQLite the plan runs synchronously
 * inside one better-sqlite3 transaction, so no other statement can interleave (TypeORM shares one
 * connection between all callers there); on MySQL/PostgreSQL it runs on its own pooled connection,
 * retried on a deadlock.
 */
@Injectable()
export class QuotaLedger {
  private readonly logger = new Logger('QuotaLedger');
  private readonly statements = new Map<string, SqliteStatement>();
  /** One BEGIN IMMEDIATE … COMMIT wrapper, built once (better-sqlite3 prepares its statements per wrapper). */
  private readonly sqliteTransaction?: { immediate(plan: Plan<unknown>): unknown };

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    if (dataSource.options.type === 'better-sqlite3') {
      const db = (dataSource.driver as unknown as { databaseConnection: SqliteDatabase }).databaseConnection;
      this.sqliteTransaction = db.transaction((steps: Plan<unknown>) => {
        let input: StepResult = undefined;
        for (;;) {
          const next = steps.next(input);
          if (next.done) {
            if (!next.value.commit) throw new Rollback(next.value.value);
            return next.value.value;
          }
          input = this.execSqlite(db, next.value);
        }
      });
    }
  }

  reserve(userId: number, tokenId: number, amount: number): Promise<ReserveOutcome> {
    return this.run(() => reservePlan(userId, tokenId, amount));
  }

  release(userId: number, tokenId: number, amount: number): Promise<void> {
    return this.run(() => releasePlan(userId, tokenId, amount));
  }

  /** Applies the real price; never drives a balance below zero (the extra charge is capped instead). */
  async settle(userId: number, tokenId: number, reserved: number, actual: number): Promise<SettleOutcome> {
    const full = await this.run(() => settlePlan(userId, tokenId, reserved, actual));
    if (full) return full;
    for (let attempt = 0; attempt < CAPPED_SETTLE_ATTEMPTS; attempt++) {
      const room = await this.run(() => headroomPlan(userId, tokenId));
      const capped = await this.run(() => settlePlan(userId, tokenId, reserved, actual, room));
      if (capped) return capped;
    }
    this.logger.warn(`user ${userId}: could not take the extra ${actual - reserved} quota; charged the reserved ${reserved}`);
    return (await this.run(() => settlePlan(userId, tokenId, reserved, actual, 0)))!;
  }

  private run<R>(plan: () => Plan<R>): Promise<R> {
    if (this.sqliteTransaction) {
      try {
        return Promise.resolve(this.sqliteTransaction.immediate(plan()) as R);
      } catch (error) {
        return error instanceof Rollback ? Promise.resolve(error.value as R) : Promise.reject(error);
      }
    }
    return this.runPooled(plan);
  }

  private execSqlite(db: SqliteDatabase, step: LedgerStep): StepResult {
    let statement = this.statements.get(step.sql);
    if (!statement) this.statements.set(step.sql, (statement = db.prepare(step.sql)));
    return step.read ? statement.get(step.params) : statement.run(step.params).changes;
  }

  private async runPooled<R>(plan: () => Plan<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      const runner = this.dataSource.createQueryRunner();
      try {
        await runner.connect();
        await runner.startTransaction();
        const steps = plan();
        let input: StepResult = undefined;
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
