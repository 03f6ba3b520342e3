import { afterEach, describe, expect, it } from 'vitest';
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
