import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  type BatchedTransactions,
  batchedTransactionsOf,
  MysqlOneTrip,
  mysqlPoolOf,
  type Plan,
  PostgresOneTrip,
  postgresPoolOf,
  Rollback,
} from '@gw/database';
import { BalanceEvents, type BalanceChanged } from '@gw/user';
import {
  type LeanLedger,
  releasePlan,
  type ReservationKey,
  type ReserveOutcome,
  reservePlan,
  type SettleOutcome,
  settlePlan,
} from './balance-plans.js';
import { MysqlLedger } from './mysql-balance.js';
import { PostgresLedger } from './postgres-balance.js';

/**
 * Charges to a user and a token together (users.quota/used_quota/request_count, tokens.remain_quota/
 * used_quota): the relay's reserve, settle and refund, and the tasks' adjustments. A reservation with
 * a key (request id + owning instance) is recorded in quota_reservations in the same commit, so a crash
 * before its settle is recovered (the relay's ReservationRecovery). On SQLite every movement goes
 * through the data source's batched-transaction runner; on MySQL/PostgreSQL a keyed reservation takes
 * the lean single-statement path (mysql-balance.ts, postgres-balance.ts), the rest a pooled transaction
 * retried on deadlock. Every committed movement is announced on BalanceEvents.
 */
@Injectable()
export class BalanceLedger implements BeforeApplicationShutdown {
  private readonly logger = new Logger('BalanceLedger');
  private readonly transactions: BatchedTransactions;
  private readonly lean?: LeanLedger;
  private readonly mysql?: MysqlLedger;
  /**
   * The group commit's batches as one multi-statement round trip: on MySQL on a small pool of its own, on
   * PostgreSQL on a client of the driver's pool (simple query protocol).
   */
  private readonly oneTrip?: MysqlOneTrip | PostgresOneTrip;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: BalanceEvents,
  ) {
    this.transactions = batchedTransactionsOf(dataSource);
    // The pools exist once the data source is initialised (before any request): looked up per call.
    if (dataSource.options.type === 'mysql') {
      const oneTrip = new MysqlOneTrip(dataSource);
      this.oneTrip = oneTrip;
      this.mysql = new MysqlLedger(
        {
          execute: (sql, values, callback) => mysqlPoolOf(dataSource)!.execute(sql, values, callback),
          getConnection: (callback) => mysqlPoolOf(dataSource)!.getConnection(callback),
        },
        (message) => this.logger.warn(message),
        (statements) => oneTrip.run(statements),
      );
      this.lean = this.mysql;
    }
    if (dataSource.options.type === 'postgres') {
      const oneTrip = new PostgresOneTrip(() => postgresPoolOf(dataSource)!.connect());
      this.oneTrip = oneTrip;
      this.lean = new PostgresLedger(
        {
          connect: () => postgresPoolOf(dataSource)!.connect(),
          query: (config) => postgresPoolOf(dataSource)!.query(config),
        },
        (statements) => oneTrip.run(statements),
      );
    }
  }

  /**
   * After the relay drained (destroy hooks ran): MySQL's free reservation slots of this process go, so a
   * stopped instance leaves only real reservations (a crash leaves them to the recovery job).
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.mysql?.dropFreeSlots().catch((error: Error) => this.logger.warn(`removing free reservation slots: ${error.message}`));
    // Anything still moving after this goes statement by statement on TypeORM's pool.
    await this.oneTrip?.close();
  }

  /** Takes `amount` from the user and the token (id 0: none); with a key, the reservation row too. */
  async reserve(userId: number, tokenId: number, amount: number, key?: ReservationKey): Promise<ReserveOutcome> {
    const outcome =
      key && this.lean
        ? await this.lean.reserve(userId, tokenId, amount, key.requestId, key.owner)
        : await this.transactions.run(() => reservePlan(userId, tokenId, amount, key));
    if (outcome === 'ok') this.changed(userId, tokenId);
    return outcome;
  }

  /**
   * Gives a reservation back; with a request id only while it is open (false when it was settled or
   * refunded already). The server databases mark a refunded row (-3) for the next forget batch.
   */
  async release(userId: number, tokenId: number, amount: number, requestId?: string): Promise<boolean> {
    const released =
      requestId !== undefined && this.lean
        ? await this.lean.release(userId, tokenId, amount, requestId)
        : await this.transactions.run(() => releasePlan(userId, tokenId, amount, requestId));
    if (released) this.changed(userId, tokenId);
    return released;
  }

  /** Applies the real price in full (docs/billing.md); undefined when the reservation was no longer open. */
  async settle(userId: number, tokenId: number, reserved: number, actual: number, requestId?: string): Promise<SettleOutcome | undefined> {
    const outcome =
      requestId !== undefined && this.lean
        ? await this.lean.settle(userId, tokenId, reserved, actual, requestId)
        : await this.transactions.run(() => settlePlan(userId, tokenId, reserved, actual, requestId));
    if (outcome) this.changed(userId, tokenId);
    return outcome;
  }

  /**
   * Runs a plan in one transaction of the batched runner (another module's rows moving with a balance, as
   * a task's status with its refund); `touched` names the balances it may move, announced after it ran.
   */
  async transact<R>(plan: () => Plan<R>, touched?: BalanceChanged): Promise<R> {
    const value = await this.transactions.run(plan);
    if (touched) this.events.changed(touched);
    return value;
  }

  /**
   * Settles a keyed reservation in one transaction with the caller's own writes (`work`, e.g. the row of
   * the task the reservation paid for), so both are durable together or not at all. undefined (and
   * nothing written) when the reservation was no longer open.
   */
  async settleWith<T>(
    reservation: { userId: number; tokenId: number; amount: number; requestId: string },
    actual: number,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<{ outcome: SettleOutcome; value: T } | undefined> {
    const { userId, tokenId, amount, requestId } = reservation;
    const result = await this.dataSource
      .transaction(async (manager) => {
        const value = await work(manager);
        // A reservation no longer open makes the plan roll back (Rollback), the caller's writes with it.
        const outcome = await this.transactions.runIn(manager, settlePlan(userId, tokenId, amount, actual, requestId));
        return { outcome: outcome!, value };
      })
      .catch((error: unknown) => {
        if (error instanceof Rollback) return undefined;
        throw error;
      });
    if (result) this.changed(userId, tokenId);
    return result;
  }

  private changed(userId: number, tokenId: number): void {
    this.events.changed(tokenId > 0 ? { userId, tokenId } : { userId });
  }
}
