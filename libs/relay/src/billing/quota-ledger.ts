import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { cancelScheduled, scheduleEvery } from '@gw/core';
import type { Plan } from '@gw/database';
import { LogService } from '@gw/log';
import { BalanceLedger, forgetReservationsPlan, RESERVATION_FORGET_WHERE, type ReserveOutcome, type SettleOutcome } from '@gw/token';
import type { BalanceChanged } from '@gw/user';

/** Settled reservations are removed in batches, after the log rows written before them are flushed. */
const FORGET_INTERVAL_MS = 1000;
const FORGET_BATCH = 500;

/**
 * The relay's side of its quota movements: the balances move in @gw/token's BalanceLedger (one
 * transaction of conditional UPDATEs each, batched on SQLite, single statements on MySQL/PostgreSQL);
 * this keeps the instance's identity on its durable reservations and removes settled ones once the log
 * rows written before them are flushed (the log lib sits above the token lib, so this step lives here).
 */
@Injectable()
export class QuotaLedger implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('QuotaLedger');
  /** This instance's id in ledger_owners and on its reservations. */
  readonly owner = randomUUID();
  /** Settled requests whose reservation row waits for their log row to be flushed. */
  private settledIds: string[] = [];
  private forgetting: Promise<void> = Promise.resolve();
  private readonly sqlite: boolean;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly logs: LogService,
    private readonly balances: BalanceLedger,
    private readonly scheduler: SchedulerRegistry,
  ) {
    this.sqlite = dataSource.options.type === 'better-sqlite3';
  }

  onModuleInit(): void {
    const failed = (e: Error) => this.logger.warn(`forgetting settled reservations: ${e.message}`);
    scheduleEvery(this.scheduler, 'ledger-forget-settled', FORGET_INTERVAL_MS, () => this.forgetSettled(), failed);
  }

  /** After the pipeline drained: the last settled reservations are removed once their log rows are written. */
  async beforeApplicationShutdown(): Promise<void> {
    cancelScheduled(this.scheduler, 'ledger-forget-settled');
    await this.forgetSettled();
  }

  /**
   * Takes `amount` from the user and the token. With a request id the reservation is also recorded
   * durably in the same commit, so a crash before the settle cannot lose it (see ReservationRecovery).
   */
  reserve(userId: number, tokenId: number, amount: number, requestId?: string): Promise<ReserveOutcome> {
    return this.balances.reserve(userId, tokenId, amount, requestId === undefined ? undefined : { requestId, owner: this.owner });
  }

  /** Gives a reservation back; false when the request's reservation was no longer open (settled or refunded). */
  async release(userId: number, tokenId: number, amount: number, requestId?: string): Promise<boolean> {
    const released = await this.balances.release(userId, tokenId, amount, requestId);
    // The server databases mark a refunded row; it is removed with the next batch.
    if (released && requestId !== undefined && !this.sqlite) this.settledIds.push(requestId);
    return released;
  }

  /**
   * Applies the real price in full (docs/billing.md): an extra charge the balances cannot cover takes
   * them below zero and is reported as the shortfall. undefined when the request's reservation was no
   * longer open (the recovery job refunded it), so nothing is charged twice.
   */
  async settle(userId: number, tokenId: number, reserved: number, actual: number, requestId?: string): Promise<SettleOutcome | undefined> {
    const outcome = await this.balances.settle(userId, tokenId, reserved, actual, requestId);
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
    if (this.sqlite) return this.balances.transact(() => forgetReservationsPlan(ids));
    // One statement for the batch on the server databases.
    const [sql, params] = this.dataSource.driver.escapeQueryWithParameters(
      `DELETE FROM quota_reservations WHERE request_id IN (:...ids) AND ${RESERVATION_FORGET_WHERE}`,
      { ids },
    );
    // READ COMMITTED: on a small table MySQL answers the IN list by a scan, and under REPEATABLE READ the scan
    // keeps a next-key lock on every row it read, open reservations included, deadlocking with the settles
    // and reserves of the requests in flight. Where the server refuses it (binlog_format=STATEMENT), the
    // plain DELETE.
    if (this.dataSource.options.type !== 'mysql') return this.dataSource.query(sql, params);
    return this.dataSource
      .transaction('READ COMMITTED', (manager) => manager.query(sql, params))
      .catch(() => this.dataSource.query(sql, params));
  }

  /**
   * A reservation settled outside settle() (a task's, with its row: see BalanceLedger.settleWith) is
   * removed with the others once its log row is flushed.
   */
  forgetAfterLogs(requestId: string): void {
    this.settledIds.push(requestId);
  }

  /**
   * Runs another module's plan in one ledger transaction (the task module refunds a failed task and
   * marks it refunded in the same commit, so the refund happens exactly once); `touched` names the
   * balances it may move.
   */
  transact<R>(plan: () => Plan<R>, touched?: BalanceChanged): Promise<R> {
    return this.balances.transact(plan, touched);
  }
}
