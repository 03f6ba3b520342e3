import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ChannelUsageService } from '@gw/channel';
import type { Plan } from '@gw/database';
import { LogService, LogType, type NewLog } from '@gw/log';
import { QuotaLedger } from '@gw/relay';
import { adjustPlan, BalanceLedger, releasePlan, TokenAuthService } from '@gw/token';
import { UserNotifyService, UserService } from '@gw/user';
import type { TaskCaller } from './task-gate.js';
import { TaskRelayError } from './task-error.js';

/** The two task tables; a closed set, so the names can be written into SQL. */
export type TaskTable = 'midjourneys' | 'tasks';

/** What a refund needs to know of the task row. */
export interface RefundTarget {
  table: TaskTable;
  id: number;
  userId: number;
  tokenId: number;
  quota: number;
  /** For the log row. */
  model: string;
  channelId: number;
  reason: string;
  /** When it failed, in the table's own unit (milliseconds in midjourneys, seconds in tasks). */
  finishTime: number;
}

/**
 * A charge taken before the upstream call, recorded durably as a reservation (quota_reservations, under
 * its own request id and this instance): kept when the provider accepts the task, else given back. A
 * crash before either leaves the open reservation, which the relay's ReservationRecovery refunds.
 */
export interface TaskCharge {
  /** What was reserved. */
  readonly quota: number;
  /**
   * The provider accepted: `saveRow` writes the task row in the same transaction as the settle of the
   * reservation (both durable or neither), then counters, channel usage and the consume log. `actual`
   * (the reserved quota unless given) is what the submit costs where it was served: a retry in another
   * auto group is priced at that group's ratio, and the difference to the reservation is charged or paid
   * back in the same settle (new-api pre-consumes once and settles at the final price).
   */
  commit(
    log: Omit<NewLog, 'userId' | 'username' | 'type' | 'quota' | 'tokenId' | 'tokenName' | 'requestId'>,
    saveRow: (manager: EntityManager) => Promise<unknown>,
    actual?: number,
  ): Promise<void>;
  /** The provider refused or could not be reached. */
  release(): Promise<void>;
}

/**
 * Status guard of a failure: only a row not yet finished may become FAILURE, and the refund commits in
 * the same transaction as that move, so two pollers (or a poller and a timeout sweep, or a restart in
 * between) can never pay a task back twice.
 */
function* failAndRefundPlan(target: RefundTarget): Plan<boolean> {
  const moved = yield {
    // The reason and time go with the status: a crash right after the refund must not leave a failure unexplained.
    sql: `UPDATE ${target.table} SET status = 'FAILURE', progress = '100%', fail_reason = :reason, finish_time = :finish WHERE id = :id AND (status IS NULL OR (status <> 'FAILURE' AND status <> 'SUCCESS'))`,
    params: { id: target.id, reason: target.reason, finish: target.finishTime },
  };
  if (moved !== 1) return { commit: false, value: false };
  if (target.quota > 0) yield* releasePlan(target.userId, target.tokenId, target.quota);
  return { commit: true, value: true };
}

/** What the completion settlement of a finished task needs. */
export interface SettleTarget extends Omit<RefundTarget, 'reason' | 'finishTime'> {
  /** The task's real price, in quota units. */
  actual: number;
  taskId: string;
  group: string;
}

/**
 * Success with its real price, in one transaction: the row moves to SUCCESS only from an unfinished status,
 * and only that move charges the difference (or pays it back), so the settlement happens exactly once
 * whatever the pollers do. An extra charge may take a balance below zero by that difference, as a relay
 * settle may: the work was delivered, and the debt is refused at the next reservation.
 */
function* succeedAndSettlePlan(target: SettleTarget): Plan<boolean> {
  const moved = yield {
    sql: `UPDATE ${target.table} SET status = 'SUCCESS', progress = '100%', quota = :actual WHERE id = :id AND (status IS NULL OR (status <> 'FAILURE' AND status <> 'SUCCESS'))`,
    params: { id: target.id, actual: target.actual },
  };
  if (moved !== 1) return { commit: false, value: false };
  yield* adjustPlan(target.userId, target.tokenId, target.actual - target.quota);
  return { commit: true, value: true };
}

/**
 * Task money through the relay's one ledger: the per-call price is reserved before the submit, kept
 * (used_quota, request_count, channel usage, consume log) when the provider accepts, released when it
 * does not, and refunded exactly once when the task later fails.
 */
@Injectable()
export class TaskBilling {
  private readonly logger = new Logger('TaskBilling');

  constructor(
    private readonly ledger: QuotaLedger,
    private readonly balances: BalanceLedger,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tokens: TokenAuthService,
    private readonly channelUsage: ChannelUsageService,
    private readonly logs: LogService,
    private readonly notices: UserNotifyService,
    private readonly users: UserService,
  ) {}

  async reserve(caller: TaskCaller, quota: number): Promise<TaskCharge> {
    // The reservation's own id: the consume log row carries it, so the recovery can tell a settled charge
    // whose log row was lost in a crash.
    const requestId = `task-${randomUUID()}`;
    if (quota > 0) {
      const outcome = await this.ledger.reserve(caller.userId, caller.tokenId, quota, requestId);
      if (outcome === 'user_quota') throw new TaskRelayError('insufficient user quota', 403, 'insufficient_user_quota');
      if (outcome === 'token_quota') {
        void this.tokens.markExhausted(caller.tokenId).catch(() => undefined);
        throw new TaskRelayError('insufficient token quota', 403, 'pre_consume_token_quota_failed');
      }
    }
    let done = false;
    return {
      quota,
      commit: async (log, saveRow, actual = quota) => {
        if (done) return;
        done = true;
        // Nothing reserved, nothing settled: the relay reserves again before an attempt that costs something.
        if (quota === 0 && actual !== 0) throw new Error(`task charge ${requestId} reserved nothing for a charge of ${actual}`);
        if (quota > 0) {
          const reservation = { userId: caller.userId, tokenId: caller.tokenId, amount: quota, requestId };
          // used_quota and request_count move with the settled price.
          let settled: Awaited<ReturnType<BalanceLedger['settleWith']>>;
          try {
            settled = await this.balances.settleWith(reservation, actual, saveRow);
          } catch (error) {
            // Neither the row nor the settle was written: the reservation goes back.
            await this.ledger.release(caller.userId, caller.tokenId, quota, requestId);
            throw error;
          }
          // Only when this instance was taken for dead and its reservation refunded meanwhile: nothing saved.
          if (!settled) throw new Error(`task charge ${requestId} was refunded before the task was saved`);
          this.ledger.forgetAfterLogs(requestId);
        } else {
          await saveRow(this.dataSource.manager);
        }
        this.tokens.applySpend(caller.tokenId, actual);
        if (log.channelId) this.channelUsage.addUsedQuota(log.channelId, actual);
        if (actual > 0) this.notices.quotaChanged(caller.userId);
        this.logs.record({
          ...log,
          userId: caller.userId,
          username: caller.username,
          type: LogType.Consume,
          quota: actual,
          tokenId: caller.tokenId,
          tokenName: caller.tokenName,
          requestId,
        });
      },
      release: async () => {
        if (done) return;
        done = true;
        if (quota > 0) await this.ledger.release(caller.userId, caller.tokenId, quota, requestId);
      },
    };
  }

  /**
   * Marks the task SUCCESS at its real price and charges or refunds the difference to the submit charge,
   * with a log row of the difference; false when the task was already finished (nothing moved).
   */
  async succeedAndSettle(target: SettleTarget): Promise<boolean> {
    const moved = await this.ledger.transact(() => succeedAndSettlePlan(target), { userId: target.userId, tokenId: target.tokenId });
    if (!moved) return false;
    const delta = target.actual - target.quota;
    this.tokens.applySpend(target.tokenId, delta);
    if (target.channelId && delta > 0) this.channelUsage.addUsedQuota(target.channelId, delta);
    this.notices.quotaChanged(target.userId);
    const user = await this.users.findById(target.userId).catch(() => null);
    this.logs.record({
      userId: target.userId,
      username: user?.username ?? '',
      type: delta > 0 ? LogType.Consume : LogType.System,
      content: `task ${target.taskId} settled at ${target.actual} quota (charged ${target.quota} at submit): ${delta > 0 ? 'charged' : 'refunded'} ${Math.abs(delta)}`,
      modelName: target.model,
      tokenId: target.tokenId,
      channelId: target.channelId,
      group: target.group,
      quota: Math.abs(delta),
      other: { task_id: target.taskId, task_settlement: true, pre_consumed_quota: target.quota, actual_quota: target.actual },
    });
    return true;
  }

  /** Marks the task FAILURE and gives its quota back; false when it was already finished (nothing paid). */
  async failAndRefund(target: RefundTarget): Promise<boolean> {
    const refunded = await this.ledger.transact(() => failAndRefundPlan(target), { userId: target.userId, tokenId: target.tokenId });
    if (!refunded) return false;
    if (target.quota > 0) {
      this.tokens.applySpend(target.tokenId, -target.quota);
      const user = await this.users.findById(target.userId).catch(() => null);
      this.logs.record({
        userId: target.userId,
        username: user?.username ?? '',
        type: LogType.System,
        content: `task failed (${target.reason || 'no reason given'}); refunded ${target.quota} quota`,
        modelName: target.model,
        tokenId: target.tokenId,
        channelId: target.channelId,
        quota: target.quota,
        other: { task_refund: true, task_table: target.table, task_row_id: target.id },
      });
      this.logger.log(`${target.table} #${target.id}: failed, ${target.quota} quota refunded to user ${target.userId}`);
    }
    return true;
  }
}
