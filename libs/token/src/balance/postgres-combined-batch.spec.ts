import { randomBytes } from 'node:crypto';
import { OneTripError, type PgClient, PostgresOneTrip } from '@gw/database';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresLedger } from './postgres-balance.js';
import { type PostgresTrip, planPostgresBatch } from './postgres-combined-batch.js';

describe('planPostgresBatch (text)', () => {
  const settle = (requestId: string, delta: number): PostgresTrip => ({
    kind: 'settle',
    userId: 1,
    tokenId: 2,
    delta,
    actual: 10 + delta,
    requestId,
  });

  it('one guarded statement per kind, user and token; refunds and settles before reserves', () => {
    const plan = planPostgresBatch([
      { kind: 'reserve', userId: 1, tokenId: 2, amount: 30, requestId: 'r-3', owner: 'own-1', createdAt: 5 },
      settle('r-1', -4),
      settle('r-2', 6),
      { kind: 'release', userId: 1, tokenId: 0, amount: 7, requestId: 'r-4' },
    ])!;
    expect(plan.statements).toHaveLength(3);
    const [settles, release, reserve] = plan.statements as [string, string, string];
    expect(settles).toContain(
      "UPDATE quota_reservations SET charged = CASE request_id WHEN 'r-1' THEN 6 WHEN 'r-2' THEN 16 END WHERE request_id IN ('r-1', 'r-2') AND charged = -1",
    );
    // The sum of the deltas (-4 + 6), the actual charges (6 + 16) and the request count.
    expect(settles).toContain('quota = quota - 2, used_quota = used_quota + 22, request_count = request_count + 2 WHERE id = 1');
    expect(settles).toContain('(SELECT count(*) FROM r) = 2 AND (SELECT count(*) FROM u) = 1 AND (SELECT count(*) FROM t) = 1');
    // A refund without a token moves the user only.
    expect(release).toContain("charged = -3 WHERE request_id IN ('r-4') AND charged = -1");
    expect(release).toContain('UPDATE users SET quota = quota + 7 WHERE id = 1');
    expect(release).not.toContain('tokens');
    expect(reserve).toContain('WHERE id = 1 AND quota >= 30');
    expect(reserve).toContain("WHERE id = 2 AND (unlimited_quota = '1' OR remain_quota >= 30)");
    expect(reserve).toContain("VALUES ('r-3', 1, 2, 30, -1, 'own-1', 5)");
    expect(reserve).toMatch(/1 \/ \(CASE WHEN .* THEN 1 ELSE 0 END\) AS guard$/);
  });

  it("each settle's balances are the ones it would have seen one by one in arrival order", () => {
    const plan = planPostgresBatch([settle('r-1', 5), settle('r-2', 7)])!;
    const after = { rows: [{ quota: '-3', remain_quota: '40', unlimited_quota: false, guard: 1 }] };
    expect(plan.values([after])).toEqual([
      { settled: 1, quota: 4, remain_quota: 47, unlimited_quota: false },
      { settled: 1, quota: -3, remain_quota: 40, unlimited_quota: false },
    ]);
  });

  it('a negative sum is written in parentheses, and a value that is not a plain literal keeps the batch out of one trip', () => {
    expect(planPostgresBatch([settle('r-1', -4)])!.statements[0]).toContain('quota = quota - (-4)');
    expect(planPostgresBatch([settle("r-1' OR 1=1 -- ", 0)])).toBeUndefined();
    expect(planPostgresBatch([settle('r-1', 0.5)])).toBeUndefined();
    expect(
      planPostgresBatch([{ kind: 'reserve', userId: 1, tokenId: 2, amount: 3, requestId: 'r', owner: "o'x", createdAt: 1 }]),
    ).toBeUndefined();
  });
});

const url = process.env.TEST_POSTGRES_URL;

/**
 * The PostgreSQL ledger on a real server, its batches in one trip: the same answers and balances as one by
 * one, a token-short reserve inside a combined batch, a settle whose row is no longer open.
 */
describe.skipIf(!url)('PostgresLedger batches in one trip (PostgreSQL)', () => {
  const name = `gw_test_trip_${randomBytes(4).toString('hex')}`;
  let admin: pg.Pool;
  let pool: pg.Pool;
  let oneTrip: PostgresOneTrip;
  /** Each trip sent and whether it committed. */
  let trips: { statements: string[]; committed: boolean }[];
  let ledger: PostgresLedger;

  const query = async (sql: string) => (await pool.query(sql)).rows as Record<string, unknown>[];

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: url, max: 1 });
    await admin.query(`CREATE DATABASE ${name}`);
    const database = new URL(url!);
    database.pathname = `/${name}`;
    pool = new pg.Pool({ connectionString: database.toString(), max: 4 });
    await pool.query(
      [
        'CREATE TABLE users (id INT PRIMARY KEY, quota BIGINT NOT NULL, used_quota BIGINT NOT NULL DEFAULT 0, request_count INT NOT NULL DEFAULT 0)',
        // new-api's BOOLEAN unlimited_quota: the plan's '1' must read as true.
        'CREATE TABLE tokens (id INT PRIMARY KEY, remain_quota BIGINT NOT NULL, used_quota BIGINT NOT NULL DEFAULT 0, unlimited_quota BOOLEAN NOT NULL DEFAULT false)',
        "CREATE TABLE quota_reservations (request_id VARCHAR(64) PRIMARY KEY, user_id INT, token_id INT, amount BIGINT, charged BIGINT DEFAULT -1, owner VARCHAR(64) NOT NULL DEFAULT '', created_at BIGINT)",
      ].join(';'),
    );
    oneTrip = new PostgresOneTrip(() => pool.connect() as unknown as Promise<PgClient>);
  });

  afterAll(async () => {
    await oneTrip?.close();
    await pool?.end();
    if (admin) await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin?.end();
  });

  const start = async (userQuota: number, tokenRemain: number) => {
    await query(
      `DELETE FROM quota_reservations; DELETE FROM users; DELETE FROM tokens; INSERT INTO users (id, quota) VALUES (1, ${userQuota}); INSERT INTO tokens (id, remain_quota) VALUES (2, ${tokenRemain})`,
    );
  };

  beforeEach(async () => {
    await start(1000, 1000);
    trips = [];
    ledger = new PostgresLedger(pool as never, async (statements) => {
      try {
        const results = await oneTrip.run(statements);
        trips.push({ statements, committed: true });
        return results;
      } catch (error) {
        trips.push({ statements, committed: false });
        throw error;
      }
    });
  });

  const balances = async () =>
    (
      await query(
        'SELECT u.quota::int, u.used_quota::int, u.request_count, t.remain_quota::int, t.used_quota::int AS token_used FROM users u, tokens t WHERE u.id = 1 AND t.id = 2',
      )
    )[0];
  const openRows = async () => Number((await query('SELECT count(*) AS n FROM quota_reservations WHERE charged = -1'))[0]!.n);

  it('concurrent reserves, settles and refunds share one trip and leave the balances one by one would', async () => {
    // The first goes alone; the others wait for it and go together.
    const reserves = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => ledger.reserve(1, 2, 100, `r-${id}`, 'o')));
    expect(reserves).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(trips).toHaveLength(1);
    const outcomes = await Promise.all([
      ledger.settle(1, 0, 100, 100, 'r-x'),
      ledger.settle(1, 2, 100, 100, 'r-a'),
      ledger.settle(1, 2, 100, 40, 'r-b'),
      ledger.settle(1, 2, 100, 130, 'r-c'),
      ledger.release(1, 2, 100, 'r-d'),
      ledger.reserve(1, 2, 50, 'r-f', 'o'),
    ]);
    // r-x was never reserved: its settle alone (the first of the burst, committed on its own) finds nothing.
    expect(outcomes).toEqual([
      undefined,
      { charged: 100, shortfall: 0 },
      { charged: 40, shortfall: 0 },
      { charged: 130, shortfall: 0 },
      true,
      'ok',
    ]);
    expect(trips.map((t) => t.committed)).toEqual([true, true]);
    // Charged 100 + 40 + 130, r-e (100) and r-f (50) still reserved.
    expect(await balances()).toEqual({ quota: 1000 - 270 - 150, used_quota: 270, request_count: 3, remain_quota: 580, token_used: 420 });
    expect(await openRows()).toBe(2);
    expect(await query("SELECT charged::int FROM quota_reservations WHERE request_id IN ('r-b', 'r-d') ORDER BY request_id")).toEqual([
      { charged: 40 },
      { charged: -3 },
    ]);
  });

  it('a reserve the token cannot cover inside a combined batch: the trip is undone, one by one refuses just that one', async () => {
    await start(1000, 250);
    const outcomes = await Promise.all([
      ledger.reserve(1, 2, 100, 'r-a', 'o'),
      ledger.reserve(1, 2, 100, 'r-b', 'o'),
      ledger.reserve(1, 2, 100, 'r-c', 'o'),
      ledger.reserve(1, 2, 30, 'r-d', 'o'),
    ]);
    // 150 left on the token after the first: 100 fits, 100 does not (50 left), 30 does.
    expect(outcomes).toEqual(['ok', 'ok', 'token_quota', 'ok']);
    expect(trips.map((t) => t.committed)).toEqual([false]);
    // The refused reserve's user debit was undone with it.
    expect(await balances()).toMatchObject({ quota: 770, remain_quota: 20, token_used: 230 });
    expect(await openRows()).toBe(3);
    expect(await query("SELECT request_id FROM quota_reservations WHERE request_id = 'r-c'")).toEqual([]);
  });

  it('a reserve the user cannot cover inside a combined batch is refused alone', async () => {
    await start(250, 1000);
    const outcomes = await Promise.all([
      ledger.reserve(1, 2, 100, 'r-a', 'o'),
      ledger.reserve(1, 0, 100, 'r-b', 'o'),
      ledger.reserve(1, 0, 100, 'r-c', 'o'),
    ]);
    expect(outcomes).toEqual(['ok', 'ok', 'user_quota']);
    expect(trips.map((t) => t.committed)).toEqual([false]);
    expect(await balances()).toMatchObject({ quota: 50, remain_quota: 900 });
  });

  it('a settle whose reservation is no longer open is answered alone; the others of its batch are settled once', async () => {
    expect(await Promise.all(['a', 'b', 'c'].map((id) => ledger.reserve(1, 2, 10, `r-${id}`, 'o')))).toEqual(['ok', 'ok', 'ok']);
    // Someone else (the recovery job) closed r-b in the meantime.
    await query("UPDATE quota_reservations SET charged = -3 WHERE request_id = 'r-b'");
    const outcomes = await Promise.all([
      ledger.reserve(1, 2, 10, 'r-z', 'o'),
      ledger.settle(1, 2, 10, 10, 'r-a'),
      ledger.settle(1, 2, 10, 20, 'r-b'),
      ledger.settle(1, 2, 10, 30, 'r-c'),
    ]);
    expect(outcomes).toEqual(['ok', { charged: 10, shortfall: 0 }, undefined, { charged: 30, shortfall: 0 }]);
    expect(trips.map((t) => t.committed)).toEqual([true, false]);
    // r-b's 10 stays debited (as the recovery job found it); r-z's 10 is open.
    expect(await balances()).toMatchObject({ quota: 1000 - 10 - 10 - 30 - 10, used_quota: 40, request_count: 2 });
  });

  it('an extra charge that goes below zero reports each settle its own shortfall', async () => {
    await start(300, 1000);
    expect(await Promise.all(['a', 'b', 'c'].map((id) => ledger.reserve(1, 2, 100, `r-${id}`, 'o')))).toEqual(['ok', 'ok', 'ok']);
    const outcomes = await Promise.all([
      ledger.release(1, 2, 100, 'r-a'),
      ledger.settle(1, 2, 100, 150, 'r-b'),
      ledger.settle(1, 2, 100, 180, 'r-c'),
    ]);
    // 100 back, then -50 (quota 50), then -80 (quota -30): only the last one went short, by 30.
    expect(outcomes).toEqual([true, { charged: 150, shortfall: 0 }, { charged: 180, shortfall: 30 }]);
    expect(trips.map((t) => t.committed)).toEqual([true, true]);
    expect(await balances()).toMatchObject({ quota: -30, used_quota: 330 });
  });

  it('close() lets a trip under way finish, then sends nothing more', async () => {
    const own = new PostgresOneTrip(() => pool.connect() as unknown as Promise<PgClient>);
    const trip = own.run(['UPDATE users SET request_count = request_count + 1 WHERE id = 1']);
    const closed = own.close();
    expect(((await trip) as { rowCount: number }[])[0]!.rowCount).toBe(1);
    await closed;
    expect(await own.run(['UPDATE users SET request_count = request_count + 1 WHERE id = 1'])).toBeUndefined();
    expect((await balances())!.request_count).toBe(1);
  });

  it('a statement error rolls the whole trip back (not committed); a lost connection leaves its outcome unknown', async () => {
    const failed = await oneTrip
      .run(['UPDATE users SET request_count = request_count + 1 WHERE id = 1', 'SELECT 1 / 0'])
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(OneTripError);
    expect((failed as OneTripError).committed).toBe('no');
    // The server ends this very connection: the text may have been cut anywhere, so nobody is told it committed.
    const lost = await oneTrip
      .run(['UPDATE users SET request_count = request_count + 1 WHERE id = 1', 'SELECT pg_terminate_backend(pg_backend_pid())'])
      .catch((error: unknown) => error);
    expect((lost as OneTripError).committed).toBe('unknown');
    expect((await balances())!.request_count).toBe(0);
    // The pool still serves trips (the dead client was dropped, the rolled-back one is clean).
    expect(await oneTrip.run(['UPDATE users SET request_count = request_count + 1 WHERE id = 1'])).toHaveLength(1);
    expect((await balances())!.request_count).toBe(1);
  });
});
