import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { cancelScheduled, scheduleEvery } from '@gw/core';
import type { LedgerRow, Plan } from '@gw/database';
import { LogService } from '@gw/log';
import {
  BalanceLedger,
  forgetReservationsPlan,
  OPEN,
  REFUNDED,
  RESERVATION_FORGET_WHERE,
  type ReserveOutcome,
  type SettleOutcome,
} from '@gw/token';
import type { BalanceChanged } from '@gw/user';

/** Settled reservations are removed in batches, after the log rows written before them are flushed. */
const FORGET_INTERVAL_MS = 1000;
const FORGET_BATCH = 500;
/**
 * A keyed settle or refund whose database call failed (a lost connection, a failover, a full pool) is tried
 * again after these pauses, about a minute in all: left undone, the reservation would stay open under a live
 * owner, holding the user's quota with no log row until this instance restarts (then the recovery job refunds
 * it). Both are safe to repeat: they act only on an open reservation row.
 */
const FINISH_RETRY_DELAYS_MS = [50, 200, 500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000];

function* reservationMarkPlan(requestId: string): Plan<LedgerRow> {
  const row = yield { sql: 'SELECT charged FROM quota_reservations WHERE request_id = :r', params: { r: requestId }, read: true };
  return { commit: true, value: row as LedgerRow };
}

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
  /** The pauses between tries of a failed keyed settle or refund (tests shorten them). */
  finishRetryDelaysMs: readonly number[] = FINISH_RETRY_DELAYS_MS;

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
   * durably in the same commit, so a crash before the settle cannot lose it (see ReservationRecovery). A
   * keyed reserve that fails without an answer may have committed: what it recorded is given back behind
   * the caller, which fails its request, so it does not stay open under this live instance.
   */
  async reserve(userId: number, tokenId: number, amount: number, requestId?: string): Promise<ReserveOutcome> {
    if (requestId === undefined) return this.balances.reserve(userId, tokenId, amount);
    try {
      return await this.balances.reserve(userId, tokenId, amount, { requestId, owner: this.owner });
    } catch (error) {
      void this.release(userId, tokenId, amount, requestId).then(
        (released) =>
          released &&
          this.logger.warn(`request ${requestId}: its reserve failed (${(error as Error)?.message}) yet recorded ${amount}; refunded`),
        () => undefined,
      );
      throw error;
    }
  }

  /**
   * Gives a reservation back; false when the request's reservation was no longer open (settled or refunded).
   * A keyed refund whose call failed goes on trying behind the caller (FINISH_RETRY_DELAYS_MS), which is
   * answering a client that should not wait for the database to come back; the caller then hears false.
   */
  async release(userId: number, tokenId: number, amount: number, requestId?: string): Promise<boolean> {
    if (requestId === undefined) return this.balances.release(userId, tokenId, amount);
    const attempt = (retried: boolean) =>
      this.balances.release(userId, tokenId, amount, requestId).then((done) => done || (retried && this.closedAs(requestId, REFUNDED)));
    const released = (done: boolean) => {
      // The server databases mark a refunded row; it is removed with the next batch.
      if (done && !this.sqlite) this.settledIds.push(requestId);
      return done;
    };
    try {
      return released(await attempt(false));
    } catch (error) {
      void this.tryAgain(`refund of ${requestId}`, error, attempt).then(released, () => undefined);
      return false;
    }
  }

  /**
   * Applies the real price in full (docs/billing.md): an extra charge the balances cannot cover takes
   * them below zero and is reported as the shortfall. undefined when the request's reservation was no
   * longer open (the recovery job refunded it), so nothing is charged twice. A keyed settle whose call
   * failed is tried again (FINISH_RETRY_DELAYS_MS) before this answers: its client has its answer already.
   */
  async settle(userId: number, tokenId: number, reserved: number, actual: number, requestId?: string): Promise<SettleOutcome | undefined> {
    if (requestId === undefined)
      return this.reported(userId, tokenId, actual, await this.balances.settle(userId, tokenId, reserved, actual));
    const attempt = async (retried: boolean): Promise<SettleOutcome | undefined> => {
      const done = await this.balances.settle(userId, tokenId, reserved, actual, requestId);
      if (done || !retried) return done;
      // A try whose answer was lost may have committed: then the row carries this very charge. The shortfall
      // it computed is lost with the answer, so 0 is reported.
      return (await this.closedAs(requestId, actual)) ? { charged: actual, shortfall: 0 } : undefined;
    };
    let outcome: SettleOutcome | undefined;
    try {
      outcome = await attempt(false);
    } catch (error) {
      outcome = await this.tryAgain(`settle of ${requestId}`, error, attempt);
    }
    if (outcome) this.settledIds.push(requestId);
    return this.reported(userId, tokenId, actual, outcome);
  }

  private reported(userId: number, tokenId: number, actual: number, outcome: SettleOutcome | undefined): SettleOutcome | undefined {
    if (outcome && outcome.shortfall > 0)
      this.logger.warn(`user ${userId} token ${tokenId}: charged ${actual}, ${outcome.shortfall} beyond the balance (now in debt)`);
    return outcome;
  }

  /** Repeats a keyed settle or refund whose first try failed, after each pause of finishRetryDelaysMs. */
  private async tryAgain<T>(what: string, firstError: unknown, attempt: (retried: true) => Promise<T>): Promise<T> {
    let error = firstError;
    for (const pause of this.finishRetryDelaysMs) {
      this.logger.warn(`${what} failed (${(error as Error)?.message ?? error}); trying again in ${pause} ms`);
      await sleep(pause);
      try {
        return await attempt(true);
      } catch (next) {
        error = next;
      }
    }
    this.logger.error(
      `${what} failed after ${this.finishRetryDelaysMs.length + 1} tries; its reservation stays open until this instance restarts`,
    );
    throw error;
  }

  /** Whether the request's reservation row was closed with this mark (a charge, or REFUNDED); never OPEN. */
  private async closedAs(requestId: string, mark: number): Promise<boolean> {
    if (mark === OPEN) return false;
    const row = await this.balances.transact(() => reservationMarkPlan(requestId));
    return row !== undefined && Number(row.charged) === mark;
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
      // A log row still waiting for the database: its reservation stays until it is written.
      if (!(await this.logs.flush())) {
        this.settledIds = ids.concat(this.settledIds);
        return;
      }
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
