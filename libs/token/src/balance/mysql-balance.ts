import type { MysqlConnection, MysqlPool } from '@gw/database';
import type { LeanLedger, ReserveOutcome, SettleOutcome } from './balance-plans.js';

interface OkPacket {
  affectedRows: number;
}
type Rows = Record<string, unknown>[];

const DEADLOCK = /deadlock|ER_LOCK_DEADLOCK|ER_LOCK_WAIT_TIMEOUT/i;
const MAX_ATTEMPTS = 4;

/**
 * A reservation row's states (quota_reservations.charged): -1 open (debited), -3 refunded (the server
 * paths mark instead of deleting, and the row goes with the next batch), ≥ 0 settled with that charge.
 * The ReservationRecovery finishes each state.
 */
export const OPEN = -1;
export const REFUNDED = -3;

const INSERT_OPEN =
  'INSERT INTO quota_reservations (request_id, user_id, token_id, amount, charged, owner, created_at) VALUES (?, ?, ?, ?, -1, ?, ?)';

/**
 * The relay's ledger on MySQL/MariaDB in as few round trips as its guarantees allow: one multi-table
 * UPDATE moves the user, the token and the reservation row together (a single statement is atomic
 * without BEGIN/COMMIT), as prepared statements on the driver's own pool (no TypeORM query runner).
 * Reserve: the conditional UPDATE of user and token and the INSERT of the open row in one transaction
 * (one commit, so one log flush, as the settle); settle and refund: one UPDATE (plus one read when an
 * extra charge may have gone short). Each UPDATE matches only a row in the expected state, so a settle,
 * a refund and the recovery job can never both apply. (mysql2's default FOUND_ROWS flag makes
 * affectedRows count matched rows, so a reserve of 0 still reports its match.)
 */
export class MysqlLedger implements LeanLedger {
  constructor(private readonly pool: MysqlPool) {}

  async reserve(userId: number, tokenId: number, amount: number, requestId: string, owner: string): Promise<ReserveOutcome> {
    const debit =
      tokenId > 0
        ? [
            'UPDATE users u, tokens t SET u.quota = u.quota - ?, t.remain_quota = t.remain_quota - ?, t.used_quota = t.used_quota + ?',
            ' WHERE u.id = ? AND t.id = ? AND u.quota >= ? AND (t.unlimited_quota = 1 OR t.remain_quota >= ?)',
          ].join('')
        : 'UPDATE users SET quota = quota - ? WHERE id = ? AND quota >= ?';
    const params = tokenId > 0 ? [amount, amount, amount, userId, tokenId, amount, amount] : [amount, userId, amount];
    const reserved = await this.transaction(async (run) => {
      if (((await run(debit, params)) as OkPacket).affectedRows === 0) return false;
      await run(INSERT_OPEN, [requestId, userId, tokenId, amount, owner, Math.floor(Date.now() / 1000)]);
      return true;
    });
    if (reserved) return 'ok';
    // Refused: say which balance was short (the user first, as new-api does).
    const [user] = (await this.exec('SELECT quota FROM users WHERE id = ?', [userId])) as Rows;
    return Number(user?.quota ?? 0) < amount || tokenId === 0 ? 'user_quota' : 'token_quota';
  }

  /** The full price (docs/billing.md); undefined when the reservation was no longer open. */
  async settle(userId: number, tokenId: number, reserved: number, actual: number, requestId: string): Promise<SettleOutcome | undefined> {
    const delta = actual - reserved;
    const sql =
      tokenId > 0
        ? [
            'UPDATE users u, tokens t, quota_reservations r SET u.quota = u.quota - ?, u.used_quota = u.used_quota + ?, u.request_count = u.request_count + 1,',
            ' t.remain_quota = t.remain_quota - ?, t.used_quota = t.used_quota + ?, r.charged = ? WHERE u.id = ? AND t.id = ? AND r.request_id = ? AND r.charged = -1',
          ].join('')
        : 'UPDATE users u, quota_reservations r SET u.quota = u.quota - ?, u.used_quota = u.used_quota + ?, u.request_count = u.request_count + 1, r.charged = ? WHERE u.id = ? AND r.request_id = ? AND r.charged = -1';
    const params =
      tokenId > 0 ? [delta, actual, delta, delta, actual, userId, tokenId, requestId] : [delta, actual, actual, userId, requestId];
    if (((await this.exec(sql, params)) as OkPacket).affectedRows === 0) return undefined;
    if (delta <= 0) return { charged: actual, shortfall: 0 };
    // How far below zero the extra went (informational: read just after the commit).
    const [row] = (await this.exec(
      tokenId > 0
        ? 'SELECT u.quota, t.remain_quota, t.unlimited_quota FROM users u, tokens t WHERE u.id = ? AND t.id = ?'
        : 'SELECT quota FROM users WHERE id = ?',
      tokenId > 0 ? [userId, tokenId] : [userId],
    )) as Rows;
    let shortfall = Math.min(delta, Math.max(0, -Number(row?.quota ?? 0)));
    if (tokenId > 0 && !Number(row?.unlimited_quota))
      shortfall = Math.max(shortfall, Math.min(delta, Math.max(0, -Number(row?.remain_quota ?? 0))));
    return { charged: actual, shortfall };
  }

  /** Refund of an open reservation; false when it was settled or refunded already. */
  async release(userId: number, tokenId: number, amount: number, requestId: string): Promise<boolean> {
    const sql =
      tokenId > 0
        ? 'UPDATE users u, tokens t, quota_reservations r SET u.quota = u.quota + ?, t.remain_quota = t.remain_quota + ?, t.used_quota = t.used_quota - ?, r.charged = -3 WHERE u.id = ? AND t.id = ? AND r.request_id = ? AND r.charged = -1'
        : 'UPDATE users u, quota_reservations r SET u.quota = u.quota + ?, r.charged = -3 WHERE u.id = ? AND r.request_id = ? AND r.charged = -1';
    const params = tokenId > 0 ? [amount, amount, amount, userId, tokenId, requestId] : [amount, userId, requestId];
    return ((await this.exec(sql, params)) as OkPacket).affectedRows > 0;
  }

  /** `work` in one transaction on one pooled connection: committed when it returns true, else rolled back. */
  private async transaction(work: (run: (sql: string, values: unknown[]) => Promise<unknown>) => Promise<boolean>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const connection = await new Promise<MysqlConnection>((resolve, reject) =>
        this.pool.getConnection((error, c) => (error ? reject(error) : resolve(c))),
      );
      const query = (sql: string) =>
        new Promise((resolve, reject) => connection.query(sql, (error, r) => (error ? reject(error) : resolve(r))));
      const run = (sql: string, values: unknown[]) =>
        new Promise((resolve, reject) => connection.execute(sql, values, (error, r) => (error ? reject(error) : resolve(r))));
      try {
        await query('START TRANSACTION');
        const commit = await work(run);
        await query(commit ? 'COMMIT' : 'ROLLBACK');
        return commit;
      } catch (error) {
        await query('ROLLBACK').catch(() => undefined);
        if (attempt < MAX_ATTEMPTS && DEADLOCK.test(String((error as Error).message ?? error))) continue;
        throw error;
      } finally {
        connection.release();
      }
    }
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
