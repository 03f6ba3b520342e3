import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { batchedTransactionsOf } from './batched-transactions.js';
import { type Plan, Rollback } from './plan.js';
import { sqliteHandleOf } from './raw-handles.js';
import { serializeSqliteTransactions } from './sqlite-transactions.js';

async function openMemoryDb(): Promise<DataSource> {
  const ds = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
  await ds.initialize();
  serializeSqliteTransactions(ds);
  await ds.query('CREATE TABLE wallet (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL)');
  await ds.query('INSERT INTO wallet (id, amount) VALUES (1, 100)');
  return ds;
}

function* spendPlan(n: number): Plan<boolean> {
  const moved = yield { sql: 'UPDATE wallet SET amount = amount - :n WHERE id = 1 AND amount >= :n', params: { n } };
  return { commit: moved === 1, value: moved === 1 };
}

describe('BatchedTransactions on SQLite', () => {
  let ds: DataSource | undefined;
  afterEach(async () => {
    await ds?.destroy();
    ds = undefined;
  });

  it('is one runner per data source, on the driver connection sqliteHandleOf returns', async () => {
    ds = await openMemoryDb();
    expect(batchedTransactionsOf(ds)).toBe(batchedTransactionsOf(ds));
    expect(batchedTransactionsOf(ds).sqlite).toBe(sqliteHandleOf(ds));
    expect(sqliteHandleOf(new DataSource({ type: 'postgres' }))).toBeUndefined();
  });

  it('runs plans and raw work of one turn in order, each seeing the ones before and rolled back alone when it fails', async () => {
    ds = await openMemoryDb();
    const runner = batchedTransactionsOf(ds);
    const db = sqliteHandleOf(ds)!;
    const outcomes = await Promise.allSettled([
      runner.run(() => spendPlan(60)),
      runner.run(() => spendPlan(60)),
      runner.runSqlite((raw) => {
        raw.prepare('UPDATE wallet SET amount = amount + 5 WHERE id = 1').run();
        throw new Rollback('undone');
      }),
      runner.runSqlite((raw) => {
        raw.prepare('UPDATE wallet SET amount = amount + 1 WHERE id = 1').run();
        throw new Error('boom');
      }),
      runner.runSqlite((raw) => raw.prepare('UPDATE wallet SET amount = amount + 10 WHERE id = 1').run().changes),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
      true,
      false,
      'undone',
      'boom',
      1,
    ]);
    expect(await ds.query('SELECT amount FROM wallet')).toEqual([{ amount: 50 }]);
    expect(db.inTransaction).toBe(false);
  });

  it('runs a plan inside a caller transaction, and a refused plan rolls the caller back', async () => {
    ds = await openMemoryDb();
    const runner = batchedTransactionsOf(ds);
    await ds.query('CREATE TABLE receipts (id INTEGER PRIMARY KEY)');
    const attempt = (n: number, id: number) =>
      ds!.transaction(async (manager) => {
        await manager.query('INSERT INTO receipts (id) VALUES (?)', [id]);
        return runner.runIn(manager, spendPlan(n));
      });
    expect(await attempt(30, 1)).toBe(true);
    await expect(attempt(500, 2)).rejects.toBeInstanceOf(Rollback);
    expect(await ds.query('SELECT id FROM receipts')).toEqual([{ id: 1 }]);
    expect(await ds.query('SELECT amount FROM wallet')).toEqual([{ amount: 70 }]);
  });
});

describe('BatchedTransactions on a SQLite file another process writes', () => {
  let dir: string;
  let ds: DataSource | undefined;
  let other: BetterSqlite3.Database | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-batched-'));
  });
  afterEach(async () => {
    other?.close();
    other = undefined;
    await ds?.destroy();
    ds = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Pages written to the WAL so far (nothing checkpoints it here, so it only grows). */
  const walFrames = () => (statSync(join(dir, 'shared.db-wal')).size - 32) / (4096 + 24);

  /** The runner's data source on a WAL file, and a second connection standing for the other worker. */
  async function openShared(busyTimeoutMs: number): Promise<BetterSqlite3.Database> {
    const path = join(dir, 'shared.db');
    ds = new DataSource({
      type: 'better-sqlite3',
      database: path,
      enableWAL: true,
      prepareDatabase: (db: BetterSqlite3.Database) => {
        db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      },
    });
    await ds.initialize();
    serializeSqliteTransactions(ds);
    await ds.query('CREATE TABLE wallet (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL)');
    await ds.query('INSERT INTO wallet (id, amount) VALUES (1, 100)');
    other = new BetterSqlite3(path);
    return other;
  }

  it('waits for the other writer with the event loop free, and the jobs queued meanwhile share one commit', async () => {
    const holder = await openShared(2_000);
    const runner = batchedTransactionsOf(ds!);
    holder.prepare('BEGIN IMMEDIATE').run();
    holder.prepare('UPDATE wallet SET amount = amount + 1000 WHERE id = 1').run();
    const first = runner.run(() => spendPlan(60));
    let turns = 0;
    // A blocked event loop (SQLite's busy handler sleeping) would run none of these turns before the release.
    await new Promise<void>((resolve) => {
      const tick = () => {
        if (++turns === 5) resolve();
        else setTimeout(tick, 2);
      };
      setTimeout(tick, 2);
    });
    const second = runner.run(() => spendPlan(60));
    let settled = false;
    void first.finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled).toBe(false);
    holder.prepare('COMMIT').run();
    const framesBefore = walFrames();
    // Both see the other writer's commit: 1100 - 60 - 60.
    expect(await Promise.all([first, second])).toEqual([true, true]);
    expect(await ds!.query('SELECT amount FROM wallet')).toEqual([{ amount: 980 }]);
    // One commit of the wallet's page for both: two commits would have written it twice.
    expect(walFrames() - framesBefore).toBe(1);
  });

  it('waits in the busy handler once the lock stays taken past its polling, and fails at the busy timeout as before', async () => {
    const holder = await openShared(100);
    const runner = batchedTransactionsOf(ds!);
    holder.prepare('BEGIN IMMEDIATE').run();
    const started = Date.now();
    await expect(runner.run(() => spendPlan(10))).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    // Polled for about 50 ms, then waited the busy timeout.
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    holder.prepare('ROLLBACK').run();
    expect(await runner.run(() => spendPlan(10))).toBe(true);
    expect(await ds!.query('SELECT amount FROM wallet')).toEqual([{ amount: 90 }]);
  });
});
