import { GroupCommit, type PgClient, type PgPool, type Transactions } from '@gw/database';
import type { LeanLedger, ReserveOutcome, SettleOutcome } from './balance-plans.js';
import { type PostgresTrip, planPostgresBatch } from './postgres-combined-batch.js';

type Rows = Record<string, unknown>[];

/** Raised on purpose inside the reserve statement to undo the user's debit when the token is short. */
const TOKEN_SHORT = /division by zero|22012/;

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
/**
 * A reserve alone in its batch (the common case at low concurrency) commits asynchronously: set_config(…, true)
 * is SET LOCAL, so it holds for that statement's own implicit transaction only. Its debit is visible to every
 * other transaction at once (admission stays exact); only the WAL flush is left to the WAL writer (at most
 * ~3 × wal_writer_delay later), so the request does not wait for a disk flush before its upstream call. Why a
 * reserve lost in a database crash costs no money invariant: docs/billing.md, "Asynchronous reserve commit".
 * Settles and refunds always commit durably.
 */
const ASYNC_COMMIT = `(SELECT set_config('synchronous_commit', 'off', true))`;
const asyncReserve = (sql: string) =>
  sql.replace('SELECT (SELECT count(*) FROM r) AS reserved', `SELECT ${ASYNC_COMMIT} AS commit_mode, (SELECT count(*) FROM r) AS reserved`);
const RESERVE_WITH_TOKEN_ASYNC = asyncReserve(RESERVE_WITH_TOKEN);
const RESERVE_USER_ONLY_ASYNC = asyncReserve(RESERVE_USER_ONLY);
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
 * The relay's ledger on PostgreSQL in one statement per movement: each reserve, settle and refund is a
 * single statement (data-modifying CTEs chained through RETURNING), run as a named prepared statement on
 * a client of the driver's pool (no TypeORM query runner), and the movements of concurrent requests share
 * one transaction and so one WAL flush (GroupCommit in libs/database). When the user's debit succeeds but the token is
 * short, the reserve statement divides by zero on purpose: the batch is rolled back and run again without
 * it, so its user debit is undone too (alone in its batch, the statement autocommits on the pool and the
 * failed statement undoes itself). A batch of several goes as one round trip of combined statements
 * (postgres-combined-batch.ts) when a one-trip runner is given. The reservation states are reservation-states.ts's.
 */
export class PostgresLedger implements LeanLedger {
  private readonly commits: GroupCommit<PgClient>;

  constructor(
    private readonly pool: Pick<PgPool, 'connect' | 'query'>,
    /** A batch as one multi-statement round trip (PostgresOneTrip of libs/database); without it, statement by statement. */
    oneTrip?: (statements: string[]) => Promise<unknown[] | undefined>,
  ) {
    this.commits = new GroupCommit(
      postgresTransactions(pool),
      oneTrip && { plan: (trips) => planPostgresBatch(trips as PostgresTrip[]), run: oneTrip },
    );
  }

  reserve(userId: number, tokenId: number, amount: number, requestId: string, owner: string): Promise<ReserveOutcome> {
    const now = Math.floor(Date.now() / 1000);
    // The batch's client inside a transaction, or the pool when the reserve is alone (autocommitted).
    const reserveOn = async (client: Queryable, alone: boolean) => {
      const [row] =
        tokenId > 0
          ? alone
            ? await exec(client, 'gw_reserve_token_async', RESERVE_WITH_TOKEN_ASYNC, [amount, userId, tokenId, requestId, owner, now, 1])
            : await exec(client, 'gw_reserve_token', RESERVE_WITH_TOKEN, [amount, userId, tokenId, requestId, owner, now, 1])
          : alone
            ? await exec(client, 'gw_reserve_user_async', RESERVE_USER_ONLY_ASYNC, [amount, userId, tokenId, requestId, owner, now])
            : await exec(client, 'gw_reserve_user', RESERVE_USER_ONLY, [amount, userId, tokenId, requestId, owner, now]);
      return Number(row?.reserved) === 1;
    };
    return this.commits.submit({
      // In a batch the reserve shares the batch's durable commit (settles may be in it).
      run: (tx) => reserveOn(tx, false),
      alone: () => reserveOn(this.pool, true),
      trip: { kind: 'reserve', userId, tokenId, amount, requestId, owner, createdAt: now } satisfies PostgresTrip,
      refusal: (error): ReserveOutcome | undefined =>
        TOKEN_SHORT.test(String((error as Error).message ?? error)) ? 'token_quota' : undefined,
      after: (reserved: boolean): ReserveOutcome => (reserved ? 'ok' : 'user_quota'),
    });
  }

  /** The full price (docs/billing.md); undefined when the reservation was no longer open. */
  settle(userId: number, tokenId: number, reserved: number, actual: number, requestId: string): Promise<SettleOutcome | undefined> {
    const delta = actual - reserved;
    const settleOn = async (client: Queryable) => (await exec(client, 'gw_settle', SETTLE, [actual, requestId, delta, userId, tokenId]))[0];
    return this.commits.submit({
      run: (tx) => settleOn(tx),
      alone: () => settleOn(this.pool),
      trip: { kind: 'settle', userId, tokenId, delta, actual, requestId } satisfies PostgresTrip,
      after: (row: Record<string, unknown> | undefined): SettleOutcome | undefined => {
        if (Number(row?.settled) !== 1) return undefined;
        if (delta <= 0) return { charged: actual, shortfall: 0 };
        let shortfall = Math.min(delta, Math.max(0, -Number(row?.quota ?? 0)));
        const unlimited = row?.unlimited_quota === true || Number(row?.unlimited_quota) === 1;
        if (tokenId > 0 && row?.remain_quota != null && !unlimited)
          shortfall = Math.max(shortfall, Math.min(delta, Math.max(0, -Number(row.remain_quota))));
        return { charged: actual, shortfall };
      },
    });
  }

  /** Refund of an open reservation; false when it was settled or refunded already. */
  release(userId: number, tokenId: number, amount: number, requestId: string): Promise<boolean> {
    const releaseOn = async (client: Queryable) =>
      Number((await exec(client, 'gw_release', RELEASE, [requestId, amount, userId, tokenId]))[0]?.released) === 1;
    return this.commits.submit({
      run: (tx) => releaseOn(tx),
      alone: () => releaseOn(this.pool),
      trip: { kind: 'release', userId, tokenId, amount, requestId } satisfies PostgresTrip,
      after: (released: boolean) => released,
    });
  }
}

/** A pooled client in a transaction, or the pool itself for one autocommitted statement. */
type Queryable = Pick<PgClient, 'query'>;

async function exec(client: Queryable, name: string, text: string, values: unknown[]): Promise<Rows> {
  return (await client.query({ name, text, values })).rows;
}

/** BEGIN … COMMIT on one client of the pool (named statements are prepared once per client). */
function postgresTransactions(pool: Pick<PgPool, 'connect'>): Transactions<PgClient> {
  return {
    begin: async () => {
      const client = await pool.connect();
      try {
        await client.query({ text: 'BEGIN' });
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
      return client;
    },
    commit: async (client) => {
      await client.query({ text: 'COMMIT' });
    },
    rollback: async (client) => {
      const failed = await client.query({ text: 'ROLLBACK' }).then(
        () => undefined,
        (error: Error) => error,
      );
      // A client whose ROLLBACK failed is in an unknown state: the pool drops it.
      client.release(failed);
    },
    release: (client) => client.release(),
  };
}
