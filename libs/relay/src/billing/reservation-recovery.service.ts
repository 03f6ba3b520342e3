import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, cancelScheduled, scheduleEvery, type AppConfig } from '@gw/core';
import { JobLockService } from '@gw/database';
import { LogService, LogType, type NewLog } from '@gw/log';
import type { Plan } from '@gw/database';
import { dropFreeSlotsPlan, forgetReservationsPlan, OPEN, REFUNDED, releasePlan, TokenAuthService } from '@gw/token';
import { QuotaLedger } from './quota-ledger.js';

/** Every instance proves it is alive this often; one silent for OWNER_TTL_MS is taken for dead. */
const HEARTBEAT_MS = 5_000;
const OWNER_TTL_MS = 30_000;
const RECOVERY_MS = 10_000;
const LOCK_NAME = 'ledger-recovery';
const LOCK_TTL_MS = 120_000;
const PAGE = 200;

interface OwnerRow {
  id: string;
  host: string;
  pid: number | string;
  seen_at: number | string;
}

interface ReservationRow {
  request_id: string;
  user_id: number | string;
  token_id: number | string;
  amount: number | string;
  charged: number | string;
}

export interface RecoverySummary {
  refunded: number;
  logged: number;
}

function* heartbeatPlan(id: string, host: string, pid: number, now: number): Plan<void> {
  const params = { id, h: host, p: pid, t: now };
  if ((yield { sql: 'UPDATE ledger_owners SET seen_at = :t, host = :h, pid = :p WHERE id = :id', params }) !== 1)
    yield { sql: 'INSERT INTO ledger_owners (id, host, pid, seen_at) VALUES (:id, :h, :p, :t)', params };
  return { commit: true, value: undefined };
}

function* dropOwnerPlan(id: string): Plan<void> {
  yield { sql: 'DELETE FROM ledger_owners WHERE id = :id', params: { id } };
  return { commit: true, value: undefined };
}

/**
 * The ledgers alive in this process. Tests (and embedders) may run two gateways in one process: they share
 * the pid, yet neither is a dead predecessor of the other.
 */
const ownersInThisProcess = new Set<string>();

/** False only when the process surely does not exist (EPERM means it runs under another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Finishes the reservations of instances that died (kill -9, power loss) before settling them, exactly
 * once each: an open one is refunded (the gateway cannot prove what was served), a settled one whose
 * consume log row was lost gets that row. Runs at start and every RECOVERY_MS on one instance at a time.
 * An instance is gone when its heartbeat is older than OWNER_TTL_MS, or at once when it ran on this host
 * and its process no longer exists (a restart recovers without waiting).
 */
@Injectable()
export class ReservationRecovery implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ReservationRecovery');
  private readonly host = hostname();
  private running?: Promise<RecoverySummary | undefined>;
  /** User and token names for the log rows of one pass (a dead instance's requests mostly share a few). */
  private readonly nameCache = new Map<string, Promise<Pick<NewLog, 'userId' | 'username' | 'tokenId' | 'tokenName'>>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly ledger: QuotaLedger,
    private readonly locks: JobLockService,
    private readonly logs: LogService,
    private readonly tokens: TokenAuthService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Before the first request: a reservation whose owner has no row would be taken for orphaned.
    ownersInThisProcess.add(this.ledger.owner);
    await this.heartbeat();
    scheduleEvery(
      this.scheduler,
      'ledger-heartbeat',
      HEARTBEAT_MS,
      () => this.heartbeat(),
      (e) => this.logger.warn(`heartbeat: ${e.message}`),
    );
    if (!this.config.node.isMaster) return;
    const failed = (e: Error) => this.logger.error(`recovery: ${e.message}`);
    scheduleEvery(this.scheduler, 'ledger-recovery', RECOVERY_MS, () => this.recover(), failed);
    void this.recover().catch(failed);
  }

  onModuleDestroy(): void {
    ownersInThisProcess.delete(this.ledger.owner);
    for (const name of ['ledger-heartbeat', 'ledger-recovery']) cancelScheduled(this.scheduler, name);
  }

  /** One pass (also used by tests); undefined when another instance holds the job. */
  recover(): Promise<RecoverySummary | undefined> {
    this.running ??= this.locks.exclusive(LOCK_NAME, () => this.recoverAll(), LOCK_TTL_MS).finally(() => (this.running = undefined));
    return this.running;
  }

  private heartbeat(): Promise<void> {
    return this.ledger.transact(() => heartbeatPlan(this.ledger.owner, this.host, process.pid, Date.now()));
  }

  private async recoverAll(): Promise<RecoverySummary> {
    const summary: RecoverySummary = { refunded: 0, logged: 0 };
    this.nameCache.clear();
    for (const owner of await this.goneOwners()) {
      // Its unused MySQL reservation slots hold no money: removed first, so the pages below are reservations.
      await this.ledger.transact(() => dropFreeSlotsPlan(owner));
      for (;;) {
        const rows = await this.query<ReservationRow>(
          `SELECT request_id, user_id, token_id, amount, charged FROM quota_reservations WHERE owner = :o ORDER BY request_id LIMIT ${PAGE}`,
          { o: owner },
        );
        for (const row of rows) await this.finish(row, summary);
        if (rows.length < PAGE) break;
      }
      await this.ledger.transact(() => dropOwnerPlan(owner));
    }
    if (summary.refunded + summary.logged > 0)
      this.logger.warn(`recovered reservations of stopped instances: ${summary.refunded} refunded, ${summary.logged} log row(s) written`);
    return summary;
  }

  private async goneOwners(): Promise<string[]> {
    const now = Date.now();
    const owners = new Map((await this.query<OwnerRow>('SELECT id, host, pid, seen_at FROM ledger_owners', {})).map((o) => [o.id, o]));
    const holding = await this.query<{ owner: string }>('SELECT DISTINCT owner FROM quota_reservations', {});
    const candidates = new Set([...owners.keys(), ...holding.map((h) => h.owner)]);
    const gone: string[] = [];
    for (const id of candidates) {
      if (id === this.ledger.owner) continue;
      const row = owners.get(id);
      const pid = Number(row?.pid);
      // Same host and pid but not a ledger of this process: a predecessor whose pid was reused (pid 1 in a container).
      const sameProcess = pid === process.pid && !ownersInThisProcess.has(id);
      const dead = !row || Number(row.seen_at) < now - OWNER_TTL_MS || (row.host === this.host && (sameProcess || !processAlive(pid)));
      if (dead) gone.push(id);
    }
    return gone;
  }

  private async finish(row: ReservationRow, summary: RecoverySummary): Promise<void> {
    const userId = Number(row.user_id);
    const tokenId = Number(row.token_id);
    const amount = Number(row.amount);
    const charged = Number(row.charged);
    const requestId = row.request_id;
    if (charged === REFUNDED) {
      // Already refunded: nothing to move.
      await this.ledger.transact(() => forgetReservationsPlan([requestId]));
      return;
    }
    if (charged === OPEN) {
      // Refund and removal in one commit, only while the row is still open: exactly once.
      if (!(await this.ledger.transact(() => releasePlan(userId, tokenId, amount, requestId), { userId, tokenId }))) return;
      this.tokens.applySpend(tokenId, -amount);
      summary.refunded++;
      await this.logs.recordNow({
        ...(await this.names(userId, tokenId)),
        type: LogType.System,
        quota: 0,
        requestId,
        content: `reservation of ${amount} for request ${requestId} refunded: the gateway instance stopped before the request finished`,
      });
      return;
    }
    // Settled before the crash, but the consume row may not have been flushed: write it once, then forget.
    if (!(await this.logs.hasConsumeLog(requestId))) {
      await this.logs.recordNow({
        ...(await this.names(userId, tokenId)),
        type: LogType.Consume,
        quota: charged,
        requestId,
        content: 'charge recovered after the gateway instance stopped (request details were not saved)',
      });
      summary.logged++;
    }
    await this.ledger.transact(() => forgetReservationsPlan([requestId]));
  }

  private names(userId: number, tokenId: number): Promise<Pick<NewLog, 'userId' | 'username' | 'tokenId' | 'tokenName'>> {
    const key = `${userId}:${tokenId}`;
    let names = this.nameCache.get(key);
    if (!names) {
      names = this.lookUpNames(userId, tokenId);
      this.nameCache.set(key, names);
    }
    return names;
  }

  private async lookUpNames(userId: number, tokenId: number) {
    const [user] = await this.query<{ username: string }>('SELECT username FROM users WHERE id = :id', { id: userId });
    const [token] = tokenId > 0 ? await this.query<{ name: string }>('SELECT name FROM tokens WHERE id = :id', { id: tokenId }) : [];
    return { userId, username: user?.username ?? '', tokenId, tokenName: token?.name ?? '' };
  }

  private query<T>(sql: string, params: Record<string, unknown>): Promise<T[]> {
    const [text, values] = this.dataSource.driver.escapeQueryWithParameters(sql, params);
    return this.dataSource.query(text, values);
  }
}
