import type { PgPool } from '@gw/database';
import type { LeanLedger, ReserveOutcome, SettleOutcome } from './balance-plans.js';

const DEADLOCK = /deadlock|40P01|40001/i;
/** Raised on purpose inside the reserve statement to undo the user's debit when the token is short. */
const TOKEN_SHORT = /division by zero|22012/;
const MAX_ATTEMPTS = 4;

// `unlimited_quota = $n` with a bound 1 reads as true in new-api's BOOLEAN column and as 1 in an integer one.
const RESERVE_WITH_TOKEN = `WITH u AS (UPDATE users SET quota = quota - $1 WHERE id = $2 AND quota >= $1 RETURNING id),
t AS (UPDATE tokens SET remain_quota = remain_quota - $1, used_quota = used_quota + $1
      WHERE id = $3 AND EXISTS (SELECT 1 FROM u) AND (unlimited_quota = $7 OR remain_quota >= $1) RETURNING id),
r AS (INSERT INTO quota_reservations (request_id, user_id, token_id, amount, charged, owner, created_at)
      SELECT $4::varchar, $2::integer, $3::integer, $1::bigint, -1, $5::varchar, $6::bigint WHERE EXISTS (SELECT 1 FROM t) RETURNING 1)
SELECT (SELECT count(*) FROM r) AS reserved,
       1 / (CASE WHEN EXISTS (SELECT 1 FROM u) AND NOT EXISTS (SELECT 1 FROM t) THEN 0 ELSE 1 END) AS token_guard`;
const RESERVE_USER_ONLY = `WITH u AS (UPDATE users SET quota = quota - $1 WHERE id = $2 AND quota >= $1 RETURNING id),
r AS (INSERT INTO quota_reservations (request_id, user_id, token_id, amount, charged, owner, created_at)
      SELECT $4::varchar, $2::integer, $3::integer, $1::bigint, -1, $5::varchar, $6::bigint WHERE EXISTS (SELECT 1 FROM u) RETURNING 1)
SELECT (SELECT count(*) FROM r) AS reserved`;
const SETTLE = `WITH r AS (UPDATE quota_reservations SET charged = $1 WHERE request_id = $2 AND charged = -1 RETURNING 1),
u AS (UPDATE users SET quota = quota - $3, used_quota = used_quota + $1, request_count = request_count + 1
      WHERE id = $4 AND EXISTS (SELECT 1 FROM r) RETURNING quota),
t AS (UPDATE tokens SET remain_quota = remain_quota - $3, used_quota = used_quota + $3
      WHERE id = $5 AND EXISTS (SELECT 1 FROM r) RETURNING remain_quota, unlimited_quota)
SELECT (SELECT count(*) FROM r) AS settled, (SELECT quota FROM u) AS quota,
       (SELECT remain_quota FROM t) AS remain_quota, (SELECT unlimited_quota FROM t) AS unlimited_quota`;
const RELEASE = `WITH r AS (UPDATE quota_reservations SET charged = -3 WHERE request_id = $1 AND charged = -1 RETURNING 1),
u AS (UPDATE users SET quota = quota + $2 WHERE id = $3 AND EXISTS (SELECT 1 FROM r) RETURNING 1),
t AS (UPDATE tokens SET remain_quota = remain_quota + $2, used_quota = used_quota - $2
      WHERE id = $4 AND EXISTS (SELECT 1 FROM r) RETURNING 1)
SELECT (SELECT count(*) FROM r) AS released, (SELECT count(*) FROM u) + (SELECT count(*) FROM t) AS moved`;

/**
 * The relay's ledger on PostgreSQL in one round trip per movement: each reserve, settle and refund is a
 * single statement (data-modifying CTEs chained through RETURNING), atomic without BEGIN/COMMIT, run as a
 * named prepared statement on the driver's pool (no TypeORM query runner). When the user's debit
 * succeeds but the token is short, the reserve statement divides by zero on purpose, so the whole
 * statement, the user's debit included, is undone. The reservation states are mysql-balance.ts's.
 */
export class PostgresLedger implements LeanLedger {
  constructor(private readonly pool: PgPool) {}

  async reserve(userId: number, tokenId: number, amount: number, requestId: string, owner: string): Promise<ReserveOutcome> {
    const now = Math.floor(Date.now() / 1000);
    try {
      const [row] =
        tokenId > 0
          ? await this.exec('gw_reserve_token', RESERVE_WITH_TOKEN, [amount, userId, tokenId, requestId, owner, now, 1])
          : await this.exec('gw_reserve_user', RESERVE_USER_ONLY, [amount, userId, tokenId, requestId, owner, now]);
      return Number(row?.reserved) === 1 ? 'ok' : 'user_quota';
    } catch (error) {
      if (TOKEN_SHORT.test(String((error as Error).message ?? error))) return 'token_quota';
      throw error;
    }
  }

  /** The full price (docs/billing.md); undefined when the reservation was no longer open. */
  async settle(userId: number, tokenId: number, reserved: number, actual: number, requestId: string): Promise<SettleOutcome | undefined> {
    const delta = actual - reserved;
    const [row] = await this.exec('gw_settle', SETTLE, [actual, requestId, delta, userId, tokenId]);
    if (Number(row?.settled) !== 1) return undefined;
    if (delta <= 0) return { charged: actual, shortfall: 0 };
    let shortfall = Math.min(delta, Math.max(0, -Number(row?.quota ?? 0)));
    const unlimited = row?.unlimited_quota === true || Number(row?.unlimited_quota) === 1;
    if (tokenId > 0 && row?.remain_quota != null && !unlimited)
      shortfall = Math.max(shortfall, Math.min(delta, Math.max(0, -Number(row.remain_quota))));
    return { charged: actual, shortfall };
  }

  /** Refund of an open reservation; false when it was settled or refunded already. */
  async release(userId: number, tokenId: number, amount: number, requestId: string): Promise<boolean> {
    const [row] = await this.exec('gw_release', RELEASE, [requestId, amount, userId, tokenId]);
    return Number(row?.released) === 1;
  }

  private async exec(name: string, text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.pool.query({ name, text, values })).rows;
      } catch (error) {
        // One statement, rolled back whole by the server: safe to run again.
        if (attempt < MAX_ATTEMPTS && DEADLOCK.test(String((error as Error).message ?? error) + String((error as { code?: string }).code)))
          continue;
        throw error;
      }
    }
  }
}
