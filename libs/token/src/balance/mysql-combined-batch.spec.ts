import { randomBytes } from 'node:crypto';
import { MysqlOneTrip, type MysqlPool } from '@gw/database';
import mysql from 'mysql2';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MysqlLedger } from './mysql-balance.js';
import { type MysqlTrip, planMysqlBatch } from './mysql-combined-batch.js';

describe('planMysqlBatch (text)', () => {
  const settle = (requestId: string, delta: number): MysqlTrip => ({
    kind: 'settle',
    userId: 1,
    tokenId: 2,
    delta,
    actual: 10 + delta,
    requestId,
  });

  it('one statement per kind, user and token for the balances and one for the rows, each with its guard; settles before reserves', () => {
    const plan = planMysqlBatch(
      [
        { kind: 'reserve', userId: 1, tokenId: 2, amount: 30, requestId: 'r-3', owner: 'own-1', createdAt: 5 },
        { kind: 'reserve', userId: 1, tokenId: 2, amount: 12, requestId: 'r-5', owner: 'own-1', createdAt: 5 },
        settle('r-1', -4),
        settle('r-2', 6),
        { kind: 'release', userId: 1, tokenId: 0, amount: 7, requestId: 'r-4' },
      ],
      100,
    )!;
    expect(plan.statements).toHaveLength(11);
    expect(plan.statements[0]).toBe(
      "UPDATE quota_reservations SET charged = CASE request_id WHEN 'r-1' THEN 6 WHEN 'r-2' THEN 16 END WHERE request_id IN ('r-1', 'r-2') AND charged = -1",
    );
    expect(plan.statements[1]).toContain('ROW_COUNT() <> 2');
    // The sum of the deltas (-4 + 6), the actual charges (6 + 16) and the request count.
    expect(plan.statements[2]).toContain('u.quota = u.quota - 2, u.used_quota = u.used_quota + 22, u.request_count = u.request_count + 2');
    expect(plan.statements[4]).toContain("charged = -3 WHERE request_id IN ('r-4')");
    expect(plan.statements[6]).toBe('UPDATE users SET quota = quota + 7 WHERE id = 1');
    // The reserves' sum is debited once, and their open rows are one multi-row INSERT (no free slot).
    expect(plan.statements[8]).toContain('u.quota >= 42 AND (t.unlimited_quota = 1 OR t.remain_quota >= 42)');
    expect(plan.statements[10]).toBe(
      "INSERT INTO quota_reservations (request_id, user_id, token_id, amount, charged, owner, created_at) VALUES ('r-3', 1, 2, 30, -1, 'own-1', 100), ('r-5', 1, 2, 12, -1, 'own-1', 100)",
    );
    expect(plan.values([])).toEqual(['ok', 'ok', true, true, true]);
  });

  it('a negative sum is written in parentheses, and a value that is not a plain literal keeps the batch out of one trip', () => {
    expect(planMysqlBatch([settle('r-1', -4)], 1)!.statements[2]).toContain('u.quota = u.quota - (-4)');
    expect(planMysqlBatch([settle("r-1' OR 1=1 -- ", 0)], 1)).toBeUndefined();
    expect(planMysqlBatch([settle('r-1', 0.5)], 1)).toBeUndefined();
  });
});

const url = process.env.TEST_MYSQL_URL;

/**
 * The MySQL ledger on a real server, its batches in one trip: the same answers and balances as one by one,
 * a refused reserve inside a combined batch, a settle whose row is no longer open.
 */
describe.skipIf(!url)('MysqlLedger batches in one trip (MySQL/MariaDB)', () => {
  const name = `gw_test_trip_${randomBytes(4).toString('hex')}`;
  let admin: mysql.Pool;
  let pool: mysql.Pool;
  let oneTrip: MysqlOneTrip;
  let trips: string[][];
  let ledger: MysqlLedger;

  const query = (sql: string): Promise<Record<string, unknown>[]> =>
    new Promise((resolve, reject) =>
      admin.query(sql, (error, rows) => (error ? reject(error) : resolve(rows as Record<string, unknown>[]))),
    );

  const connection = () => {
    const server = new URL(url!);
    const user = decodeURIComponent(server.username);
    return {
      host: server.hostname,
      port: Number(server.port || 3306),
      user,
      username: user,
      password: decodeURIComponent(server.password),
    };
  };

  beforeAll(async () => {
    const { username: _, ...options } = connection();
    admin = mysql.createPool({ ...options, multipleStatements: true, connectionLimit: 1 });
    await query(`CREATE DATABASE ${name}`);
    await query(
      [
        `USE ${name}`,
        'CREATE TABLE users (id INT PRIMARY KEY, quota BIGINT NOT NULL, used_quota BIGINT NOT NULL DEFAULT 0, request_count INT NOT NULL DEFAULT 0)',
        'CREATE TABLE tokens (id INT PRIMARY KEY, remain_quota BIGINT NOT NULL, used_quota BIGINT NOT NULL DEFAULT 0, unlimited_quota TINYINT NOT NULL DEFAULT 0)',
        "CREATE TABLE quota_reservations (request_id VARCHAR(64) PRIMARY KEY, user_id INT, token_id INT, amount BIGINT, charged BIGINT DEFAULT -1, owner VARCHAR(64) NOT NULL DEFAULT '', created_at BIGINT)",
      ].join(';'),
    );
    pool = mysql.createPool({ ...options, database: name, connectionLimit: 4 });
    oneTrip = new MysqlOneTrip({ options: { type: 'mysql', ...options, username: options.user, database: name } } as unknown as DataSource);
  });

  afterAll(async () => {
    await oneTrip?.close();
    await new Promise((resolve) => pool?.end(resolve));
    if (admin) await query(`DROP DATABASE IF EXISTS ${name}`);
    await new Promise((resolve) => admin?.end(resolve));
  });

  beforeEach(async () => {
    await query(
      `USE ${name}; DELETE FROM quota_reservations; DELETE FROM users; DELETE FROM tokens; INSERT INTO users (id, quota) VALUES (1, 1000); INSERT INTO tokens (id, remain_quota) VALUES (2, 1000)`,
    );
    trips = [];
    ledger = new MysqlLedger(
      pool as unknown as MysqlPool,
      () => undefined,
      (statements) => {
        trips.push(statements);
        return oneTrip.run(statements);
      },
    );
  });

  const balances = async () => {
    const [row] = await query(
      `SELECT u.quota, u.used_quota, u.request_count, t.remain_quota, t.used_quota AS token_used FROM ${name}.users u, ${name}.tokens t WHERE u.id = 1 AND t.id = 2`,
    );
    return row;
  };
  const openRows = async () => Number((await query(`SELECT COUNT(*) AS n FROM ${name}.quota_reservations WHERE charged = -1`))[0]!.n);
  /**
   * Waits until the ledger holds free slots (the first reserve starts the refill). The rows are visible in the
   * table a moment before the INSERT's answer hands them to the ledger, so the table alone is not the signal.
   */
  const slotsReady = async () => {
    for (let i = 0; i < 2000 && ledger.freeSlots('o') === 0; i++) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(ledger.freeSlots('o')).toBeGreaterThan(0);
  };

  it('concurrent reserves and settles share one trip and leave the balances one by one would', async () => {
    expect(await ledger.reserve(1, 2, 100, 'warm', 'o')).toBe('ok');
    await slotsReady();
    // The first goes alone; the others wait for it and go together.
    const reserves = await Promise.all(['a', 'b', 'c', 'd'].map((id) => ledger.reserve(1, 2, 100, `r-${id}`, 'o')));
    expect(reserves).toEqual(['ok', 'ok', 'ok', 'ok']);
    const settles = await Promise.all([
      ledger.settle(1, 2, 100, 100, 'warm'),
      ledger.settle(1, 2, 100, 40, 'r-a'),
      ledger.settle(1, 2, 100, 130, 'r-b'),
      ledger.release(1, 2, 100, 'r-c'),
      ledger.reserve(1, 2, 50, 'r-e', 'o'),
    ]);
    expect(settles).toEqual([{ charged: 100, shortfall: 0 }, { charged: 40, shortfall: 0 }, { charged: 130, shortfall: 0 }, true, 'ok']);
    expect(trips.length).toBeGreaterThan(0);
    // Charged 100 + 40 + 130, r-d (100) and r-e (50) still reserved.
    expect(await balances()).toEqual({ quota: 1000 - 270 - 150, used_quota: 270, request_count: 3, remain_quota: 580, token_used: 420 });
    expect(await openRows()).toBe(2);
  });

  it('batched reserves write their open rows in the trip and take no free slot; only a reserve alone does', async () => {
    expect(await ledger.reserve(1, 2, 10, 'warm', 'o')).toBe('ok');
    await slotsReady();
    const free = async () => Number((await query(`SELECT COUNT(*) AS n FROM ${name}.quota_reservations WHERE charged = -9`))[0]!.n);
    const before = await free();
    // The first goes alone (one slot); the other three wait for it and go together in one trip.
    const outcomes = await Promise.all(['a', 'b', 'c', 'd'].map((id) => ledger.reserve(1, 2, 10, `r-${id}`, 'o')));
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(await free()).toBe(before - 1);
    expect(trips.at(-1)!.some((statement) => statement.startsWith('INSERT INTO quota_reservations') && statement.includes("'r-d'"))).toBe(
      true,
    );
    expect(
      await query(
        `SELECT request_id, user_id, token_id, amount, owner FROM ${name}.quota_reservations WHERE charged = -1 ORDER BY request_id`,
      ),
    ).toEqual(['r-a', 'r-b', 'r-c', 'r-d', 'warm'].map((id) => ({ request_id: id, user_id: 1, token_id: 2, amount: 10, owner: 'o' })));
    expect(await balances()).toMatchObject({ quota: 950, remain_quota: 950, token_used: 50 });
  });

  it('a batched reserve whose request id is already taken fails the trip; one by one answers just that one with the error', async () => {
    expect(await ledger.reserve(1, 2, 10, 'r-a', 'o')).toBe('ok');
    const outcomes = await Promise.allSettled([
      ledger.reserve(1, 2, 10, 'r-b', 'o'),
      ledger.reserve(1, 2, 10, 'r-c', 'o'),
      ledger.reserve(1, 2, 10, 'r-a', 'o'),
      ledger.reserve(1, 2, 10, 'r-d', 'o'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/Duplicate/i);
    // r-a, r-b, r-c and r-d debited once each; the duplicate moved nothing.
    expect(await balances()).toMatchObject({ quota: 960, remain_quota: 960 });
    expect(await openRows()).toBe(4);
  });

  it('a reserve the balance cannot cover inside a combined batch: the trip is undone, one by one refuses just that one', async () => {
    expect(await ledger.reserve(1, 2, 100, 'warm', 'o')).toBe('ok');
    await slotsReady();
    const outcomes = await Promise.all([
      ledger.reserve(1, 2, 500, 'r-a', 'o'),
      ledger.reserve(1, 2, 300, 'r-b', 'o'),
      ledger.reserve(1, 2, 200, 'r-c', 'o'),
      ledger.reserve(1, 2, 50, 'r-d', 'o'),
    ]);
    // 900 left after the first: 500 fits, 300 fits, 200 does not (100 left), 50 does.
    expect(outcomes).toEqual(['ok', 'ok', 'user_quota', 'ok']);
    expect(trips.some((statements) => statements.length > 0)).toBe(true);
    expect((await balances())!.quota).toBe(50);
    expect(await openRows()).toBe(4);
    // The refused reserve's slot is free again and no open row carries its request id.
    expect(await query(`SELECT request_id FROM ${name}.quota_reservations WHERE request_id = 'r-c'`)).toEqual([]);
  });

  it('a settle whose reservation is no longer open is answered alone; the others of its batch are settled once', async () => {
    expect(await ledger.reserve(1, 2, 10, 'r-a', 'o')).toBe('ok');
    await slotsReady();
    expect(await Promise.all([ledger.reserve(1, 2, 10, 'r-b', 'o'), ledger.reserve(1, 2, 10, 'r-c', 'o')])).toEqual(['ok', 'ok']);
    // Someone else (the recovery job) closed r-b in the meantime.
    await query(`UPDATE ${name}.quota_reservations SET charged = -3 WHERE request_id = 'r-b'`);
    const before = trips.length;
    const outcomes = await Promise.all([
      ledger.settle(1, 2, 10, 10, 'r-a'),
      ledger.settle(1, 2, 10, 20, 'r-b'),
      ledger.settle(1, 2, 10, 30, 'r-c'),
    ]);
    expect(outcomes).toEqual([{ charged: 10, shortfall: 0 }, undefined, { charged: 30, shortfall: 0 }]);
    expect(trips.length).toBe(before + 1);
    expect(await balances()).toMatchObject({ quota: 1000 - 10 - 10 - 30, used_quota: 40, request_count: 2 });
  });

  it('close() lets a trip under way finish, then sends nothing more', async () => {
    const own = new MysqlOneTrip({ options: { type: 'mysql', ...connection(), database: name } } as unknown as DataSource);
    const trip = own.run(['UPDATE users SET request_count = request_count + 1 WHERE id = 1']);
    const closed = own.close();
    expect(((await trip) as { affectedRows: number }[])[0]!.affectedRows).toBe(1);
    await closed;
    expect(await own.run(['UPDATE users SET request_count = request_count + 1 WHERE id = 1'])).toBeUndefined();
    expect((await balances())!.request_count).toBe(1);
  });
});
