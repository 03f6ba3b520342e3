import { GroupCommit, type MysqlConnection, type MysqlPool, type Transactions } from '@gw/database';
import type { LeanLedger, ReserveOutcome, SettleOutcome } from './balance-plans.js';
import { type MysqlTrip, planMysqlBatch } from './mysql-combined-batch.js';
import { FREE_SLOT, ReservationSlots } from './mysql-reservation-slots.js';
import { OPEN } from './reservation-states.js';

interface OkPacket {
  affectedRows: number;
}
type Rows = Record<string, unknown>[];

const DEADLOCK = /deadlock|ER_LOCK_DEADLOCK|ER_LOCK_WAIT_TIMEOUT/i;
const MAX_ATTEMPTS = 4;

/** A transaction of the batch: its pooled connection. */
interface Tx {
  connection: MysqlConnection;
  run(sql: string, values: unknown[]): Promise<unknown>;
  query(sql: string): Promise<unknown>;
}

export { FREE_SLOT };

const INSERT_OPEN =
  'INSERT INTO quota_reservations (request_id, user_id, token_id, amount, charged, owner, created_at) VALUES (?, ?, ?, ?, -1, ?, ?)';

const RESERVE_WITH_TOKEN = [
  'UPDATE users u, tokens t SET u.quota = u.quota - ?, t.remain_quota = t.remain_quota - ?, t.used_quota = t.used_quota + ?',
  ' WHERE u.id = ? AND t.id = ? AND u.quota >= ? AND (t.unlimited_quota = 1 OR t.remain_quota >= ?)',
].join('');
const RESERVE_USER_ONLY = 'UPDATE users SET quota = quota - ? WHERE id = ? AND quota >= ?';
/** The same debits, turning a free slot of this instance into the open reservation (mysql-reservation-slots.ts). */
const RESERVE_SLOT_WITH_TOKEN = [
  'UPDATE users u, tokens t, quota_reservations r SET u.quota = u.quota - ?, t.remain_quota = t.remain_quota - ?, t.used_quota = t.used_quota + ?,',
  ` r.request_id = ?, r.user_id = ?, r.token_id = ?, r.amount = ?, r.charged = ${OPEN}, r.created_at = ?`,
  ` WHERE u.id = ? AND t.id = ? AND r.request_id = ? AND r.charged = ${FREE_SLOT} AND u.quota >= ? AND (t.unlimited_quota = 1 OR t.remain_quota >= ?)`,
].join('');
const RESERVE_SLOT_USER_ONLY = [
  `UPDATE users u, quota_reservations r SET u.quota = u.quota - ?, r.request_id = ?, r.user_id = ?, r.token_id = 0, r.amount = ?, r.charged = ${OPEN}, r.created_at = ?`,
  ` WHERE u.id = ? AND r.request_id = ? AND r.charged = ${FREE_SLOT} AND u.quota >= ?`,
].join('');

/** A reserve's result before its answer: a slot that matched nothing (alone) is decided after the commit. */
type ReserveValue = 'ok' | 'refused' | { missedSlot: string };
const SETTLE_WITH_TOKEN = [
  'UPDATE users u, tokens t, quota_reservations r SET u.quota = u.quota - ?, u.used_quota = u.used_quota + ?, u.request_count = u.request_count + 1,',
  ' t.remain_quota = t.remain_quota - ?, t.used_quota = t.used_quota + ?, r.charged = ? WHERE u.id = ? AND t.id = ? AND r.request_id = ? AND r.charged = -1',
].join('');
const SETTLE_USER_ONLY =
  'UPDATE users u, quota_reservations r SET u.quota = u.quota - ?, u.used_quota = u.used_quota + ?, u.request_count = u.request_count + 1, r.charged = ? WHERE u.id = ? AND r.request_id = ? AND r.charged = -1';
const RELEASE_WITH_TOKEN =
  'UPDATE users u, tokens t, quota_reservations r SET u.quota = u.quota + ?, t.remain_quota = t.remain_quota + ?, t.used_quota = t.used_quota - ?, r.charged = -3 WHERE u.id = ? AND t.id = ? AND r.request_id = ? AND r.charged = -1';
const RELEASE_USER_ONLY =
  'UPDATE users u, quota_reservations r SET u.quota = u.quota + ?, r.charged = -3 WHERE u.id = ? AND r.request_id = ? AND r.charged = -1';

/**
 * The relay's ledger on MySQL/MariaDB in as few round trips as its guarantees allow: one multi-table
 * UPDATE moves the user, the token and the reservation row together, as prepared statements on the
 * driver's own pool (no TypeORM query runner), and the movements of concurrent requests share one
 * transaction and so one log flush (GroupCommit, libs/database). Reserve alone in its batch: one UPDATE that
 * debits user and token and turns a free slot into the open row (mysql-reservation-slots.ts); in a batch of
 * several, or without a free slot, the conditional UPDATE of user and token and the INSERT of the open row
 * (a batch's reserves share one UPDATE and one multi-row INSERT in its trip); settle and refund: one UPDATE (plus
 * one read after the commit when an extra charge may have gone short); a reserve, settle or refund alone in
 * its batch is that one UPDATE autocommitted (no BEGIN/COMMIT round trips); a batch of several goes as one
 * round trip of combined statements (mysql-combined-batch.ts) when a one-trip runner is given. Each UPDATE matches only a row in the expected state, so a settle,
 * a refund and the recovery job can never both apply. (mysql2's default FOUND_ROWS flag makes
 * affectedRows count matched rows, so a reserve of 0 still reports its match.)
 */
export class MysqlLedger implements LeanLedger {
  private readonly commits: GroupCommit<Tx>;
  private readonly slots: ReservationSlots;
  private readonly transactions: Transactions<Tx>;

  constructor(
    private readonly pool: MysqlPool,
    warn: (message: string) => void = () => undefined,
    /** A batch as one multi-statement round trip (MysqlOneTrip of libs/database); without it, statement by statement. */
    oneTrip?: (statements: string[]) => Promise<unknown[] | undefined>,
  ) {
    this.transactions = mysqlTransactions(pool);
    this.commits = new GroupCommit(
      this.transactions,
      oneTrip && {
        plan: (trips) => planMysqlBatch(trips as MysqlTrip[], Math.floor(Date.now() / 1000)),
        run: oneTrip,
      },
    );
    this.slots = new ReservationSlots(pool, warn);
  }

  reserve(userId: number, tokenId: number, amount: number, requestId: string, owner: string): Promise<ReserveOutcome> {
    return this.commits.submit({
      // In a batch of several, statement by statement: the plain UPDATE and INSERT in the batch's transaction.
      run: async (tx): Promise<ReserveValue> =>
        (await this.reservePlainIn(tx, userId, tokenId, amount, requestId, owner)) ? 'ok' : 'refused',
      // Alone in its batch: a free slot, taken only now (a batched reserve needs none), makes it one statement.
      alone: () => this.reserveAlone(userId, tokenId, amount, requestId, owner),
      trip: { kind: 'reserve', userId, tokenId, amount, requestId, owner, createdAt: Math.floor(Date.now() / 1000) } satisfies MysqlTrip,
      after: async (value: ReserveValue): Promise<ReserveOutcome> => {
        if (value === 'ok') return 'ok';
        if (value === 'refused') return this.refusal(userId, tokenId, amount);
        // The slot statement matched nothing: a balance was short (the slot is still free), or, rarely, the
        // slot was gone. The plain path tells which: refused, the slot is reusable; served, it is left alone.
        const outcome = await this.reservePlain(userId, tokenId, amount, requestId, owner);
        if (outcome !== 'ok') this.slots.giveBack(owner, value.missedSlot);
        return outcome;
      },
    });
  }

  /**
   * A reserve alone in its batch: one autocommitted UPDATE that turns a free slot into the open row, or
   * without a free slot the plain UPDATE and INSERT in a transaction of its own.
   */
  private async reserveAlone(userId: number, tokenId: number, amount: number, requestId: string, owner: string): Promise<ReserveValue> {
    const slot = this.slots.take(owner);
    if (slot === undefined)
      return this.inTransaction(async (tx) =>
        (await this.reservePlainIn(tx, userId, tokenId, amount, requestId, owner)) ? 'ok' : 'refused',
      );
    const withToken = tokenId > 0;
    const now = Math.floor(Date.now() / 1000);
    const sql = withToken ? RESERVE_SLOT_WITH_TOKEN : RESERVE_SLOT_USER_ONLY;
    const params = withToken
      ? [amount, amount, amount, requestId, userId, tokenId, amount, now, userId, tokenId, slot, amount, amount]
      : [amount, requestId, userId, amount, now, userId, slot, amount];
    let matched: boolean;
    try {
      matched = await matchedRow(this.executeOnce(sql, params));
    } catch (error) {
      // Rolled back whole (or lost with its connection: then a later reserve that finds the slot taken
      // just takes the plain path). A retry takes a slot again.
      this.slots.giveBack(owner, slot);
      throw error;
    }
    return matched ? 'ok' : { missedSlot: slot };
  }

  /** One transaction of its own on the pool (a reserve alone without a free slot). */
  private async inTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const tx = await this.transactions.begin();
    let value: T;
    try {
      value = await work(tx);
      await this.transactions.commit(tx);
    } catch (error) {
      await this.transactions.rollback(tx);
      throw error;
    }
    this.transactions.release(tx);
    return value;
  }

  /** Free reservation slots of `owner` ready for a reserve alone (their refill committed and acknowledged). */
  freeSlots(owner: string): number {
    return this.slots.count(owner);
  }

  /** Removes this process's free reservation slots (a graceful shutdown). */
  dropFreeSlots(): Promise<void> {
    return this.slots.dropAll();
  }

  /** The reserve without a slot: the conditional UPDATE of user and token, then the INSERT of the open row. */
  private reservePlain(userId: number, tokenId: number, amount: number, requestId: string, owner: string): Promise<ReserveOutcome> {
    return this.commits.submit({
      run: (tx) => this.reservePlainIn(tx, userId, tokenId, amount, requestId, owner),
      after: async (reserved: boolean): Promise<ReserveOutcome> => (reserved ? 'ok' : this.refusal(userId, tokenId, amount)),
    });
  }

  private async reservePlainIn(
    tx: Tx,
    userId: number,
    tokenId: number,
    amount: number,
    requestId: string,
    owner: string,
  ): Promise<boolean> {
    const withToken = tokenId > 0;
    const params = withToken ? [amount, amount, amount, userId, tokenId, amount, amount] : [amount, userId, amount];
    if (((await tx.run(withToken ? RESERVE_WITH_TOKEN : RESERVE_USER_ONLY, params)) as OkPacket).affectedRows === 0) return false;
    await tx.run(INSERT_OPEN, [requestId, userId, tokenId, amount, owner, Math.floor(Date.now() / 1000)]);
    return true;
  }

  /** A refused reserve: which balance was short (the user first, as new-api does). */
  private async refusal(userId: number, tokenId: number, amount: number): Promise<ReserveOutcome> {
    const [user] = (await this.exec('SELECT quota FROM users WHERE id = ?', [userId])) as Rows;
    return Number(user?.quota ?? 0) < amount || tokenId <= 0 ? 'user_quota' : 'token_quota';
  }

  /** The full price (docs/billing.md); undefined when the reservation was no longer open. */
  settle(userId: number, tokenId: number, reserved: number, actual: number, requestId: string): Promise<SettleOutcome | undefined> {
    const delta = actual - reserved;
    const withToken = tokenId > 0;
    const params = withToken
      ? [delta, actual, delta, delta, actual, userId, tokenId, requestId]
      : [delta, actual, actual, userId, requestId];
    const sql = withToken ? SETTLE_WITH_TOKEN : SETTLE_USER_ONLY;
    return this.commits.submit({
      run: (tx) => matchedRow(tx.run(sql, params)),
      alone: () => matchedRow(this.executeOnce(sql, params)),
      trip: { kind: 'settle', userId, tokenId, delta, actual, requestId } satisfies MysqlTrip,
      after: async (settled: boolean): Promise<SettleOutcome | undefined> => {
        if (!settled) return undefined;
        if (delta <= 0) return { charged: actual, shortfall: 0 };
        // How far below zero the extra went (informational: read just after the commit).
        const [row] = (await this.exec(
          withToken
            ? 'SELECT u.quota, t.remain_quota, t.unlimited_quota FROM users u, tokens t WHERE u.id = ? AND t.id = ?'
            : 'SELECT quota FROM users WHERE id = ?',
          withToken ? [userId, tokenId] : [userId],
        )) as Rows;
        let shortfall = Math.min(delta, Math.max(0, -Number(row?.quota ?? 0)));
        if (withToken && !Number(row?.unlimited_quota))
          shortfall = Math.max(shortfall, Math.min(delta, Math.max(0, -Number(row?.remain_quota ?? 0))));
        return { charged: actual, shortfall };
      },
    });
  }

  /** Refund of an open reservation; false when it was settled or refunded already. */
  release(userId: number, tokenId: number, amount: number, requestId: string): Promise<boolean> {
    const withToken = tokenId > 0;
    const params = withToken ? [amount, amount, amount, userId, tokenId, requestId] : [amount, userId, requestId];
    const sql = withToken ? RELEASE_WITH_TOKEN : RELEASE_USER_ONLY;
    return this.commits.submit({
      run: (tx) => matchedRow(tx.run(sql, params)),
      alone: () => matchedRow(this.executeOnce(sql, params)),
      trip: { kind: 'release', userId, tokenId, amount, requestId } satisfies MysqlTrip,
      after: (released: boolean) => released,
    });
  }

  /** One autocommitted statement on the pool (GroupCommit retries it on deadlock). */
  private executeOnce(sql: string, values: unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => this.pool.execute(sql, values, (error, result) => (error ? reject(error) : resolve(result))));
  }

  private async exec(sql: string, values: unknown[]): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await new Promise((resolve, reject) =>
          this.pool.execute(sql, values, (error, result) => (error ? reject(error) : resolve(result))),
        );
      } catch (error) {
        // One statement, rolled back whole by the server: safe to run again.
        if (attempt < MAX_ATTEMPTS && DEADLOCK.test(String((error as Error).message ?? error))) continue;
        throw error;
      }
    }
  }
}

/** START TRANSACTION … COMMIT on one connection of the pool, its statements prepared (execute). */
function mysqlTransactions(pool: MysqlPool): Transactions<Tx> {
  return {
    begin: async () => {
      const connection = await new Promise<MysqlConnection>((resolve, reject) =>
        pool.getConnection((error, c) => (error ? reject(error) : resolve(c))),
      );
      const tx: Tx = {
        connection,
        query: (sql) => new Promise((resolve, reject) => connection.query(sql, (error, r) => (error ? reject(error) : resolve(r)))),
        run: (sql, values) =>
          new Promise((resolve, reject) => connection.execute(sql, values, (error, r) => (error ? reject(error) : resolve(r)))),
      };
      try {
        await tx.query('START TRANSACTION');
      } catch (error) {
        connection.release();
        throw error;
      }
      return tx;
    },
    commit: async (tx) => {
      await tx.query('COMMIT');
    },
    rollback: async (tx) => {
      await tx.query('ROLLBACK').catch(() => undefined);
      tx.connection.release();
    },
    release: (tx) => tx.connection.release(),
  };
}

/** Whether a conditional UPDATE matched its row (the reservation was in the expected state). */
async function matchedRow(result: Promise<unknown>): Promise<boolean> {
  return ((await result) as OkPacket).affectedRows > 0;
}
