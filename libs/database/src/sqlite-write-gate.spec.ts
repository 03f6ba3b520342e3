import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { afterEach, describe, expect, it } from 'vitest';
import { batchedTransactionsOf } from './batched-transactions.js';
import { dataSourceOptions } from './data-source-options.js';
import { prepareDriver } from './prepare-driver.js';
import { sqliteHandleOf } from './raw-handles.js';
import { sqliteWriteGateOf, WRITE_GATE } from './sqlite-write-gate.js';

const turn = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * While a worker thread (the log cleanup) holds SQLite's write lock, the main connection's writes wait on the gate,
 * off the event loop, instead of sleeping in SQLite's busy handler; reads are never held back.
 */
describe('SQLite write gate', () => {
  let dir: string;
  let ds: DataSource | undefined;
  afterEach(async () => {
    await ds?.destroy();
    ds = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(): Promise<{ ds: DataSource; shared: Int32Array }> {
    dir = mkdtempSync(join(tmpdir(), 'gw-write-gate-'));
    ds = new DataSource(
      dataSourceOptions({ type: 'sqlite', path: join(dir, 'gw.db'), poolSize: 1 } as Parameters<typeof dataSourceOptions>[0], {
        entities: [],
        migrations: [],
      }),
    );
    await ds.initialize();
    prepareDriver(ds);
    await ds.query('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
    await ds.query('INSERT INTO t (id, n) VALUES (1, 0)');
    return { ds, shared: sqliteWriteGateOf(sqliteHandleOf(ds)!).shared };
  }

  /** What the cleanup worker does around its transaction: raise the gate, and lower it with a wake-up. */
  const hold = (shared: Int32Array) => Atomics.store(shared, WRITE_GATE.workerHolds, 1);
  const letGo = (shared: Int32Array) => {
    Atomics.store(shared, WRITE_GATE.workerHolds, 0);
    Atomics.notify(shared, WRITE_GATE.workerHolds);
  };

  it('holds TypeORM writes and transactions until the worker lets go, announcing them meanwhile; reads pass', async () => {
    const { ds, shared } = await open();
    hold(shared);
    let updated = false;
    let committed = false;
    const update = ds.query('UPDATE t SET n = n + 1 WHERE id = 1').then(() => (updated = true));
    const transaction = ds.transaction((manager) => manager.query('UPDATE t SET n = n + 10 WHERE id = 1')).then(() => (committed = true));
    const [row] = await ds.query('SELECT n FROM t WHERE id = 1');
    expect(Number(row.n)).toBe(0);
    await turn();
    expect(updated).toBe(false);
    expect(committed).toBe(false);
    expect(Atomics.load(shared, WRITE_GATE.mainWrites)).toBeGreaterThan(0);
    letGo(shared);
    await Promise.all([update, transaction]);
    const [after] = await ds.query('SELECT n FROM t WHERE id = 1');
    expect(Number(after.n)).toBe(11);
    expect(Atomics.load(shared, WRITE_GATE.mainWrites)).toBe(0);
  });

  it('holds the batched hot-path writes (ledger, log inserts) until the worker lets go; jobs queued meanwhile join', async () => {
    const { ds, shared } = await open();
    const batches = batchedTransactionsOf(ds);
    hold(shared);
    let ran = 0;
    const first = batches.runSqlite((db) => db.prepare('UPDATE t SET n = n + 1 WHERE id = 1').run() && ++ran);
    await turn();
    const second = batches.runSqlite((db) => db.prepare('UPDATE t SET n = n + 1 WHERE id = 1').run() && ++ran);
    await turn();
    expect(ran).toBe(0);
    letGo(shared);
    await Promise.all([first, second]);
    expect(ran).toBe(2);
    const [row] = await ds.query('SELECT n FROM t WHERE id = 1');
    expect(Number(row.n)).toBe(2);
  });
});
