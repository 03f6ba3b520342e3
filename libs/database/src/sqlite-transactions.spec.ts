import { afterEach, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { runOutsideTransactions, serializeSqliteTransactions } from './sqlite-transactions.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function openMemoryDb(): Promise<DataSource> {
  const ds = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
  await ds.initialize();
  await ds.query('CREATE TABLE credits (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL)');
  return ds;
}

/** Two transactions in flight at once: one commits a credit, the other fails and rolls back. */
async function raceCommitAndRollback(ds: DataSource): Promise<number> {
  const failing = ds.transaction(async (m) => {
    await m.query('INSERT INTO credits (amount) VALUES (1)');
    await tick();
    await tick();
    throw new Error('boom');
  });
  const committing = ds.transaction(async (m) => {
    await tick();
    await m.query('INSERT INTO credits (amount) VALUES (100)');
  });
  await Promise.allSettled([failing, committing]);
  const [row] = await ds.query('SELECT COALESCE(SUM(amount), 0) AS total FROM credits');
  return Number(row.total);
}

describe('serializeSqliteTransactions', () => {
  let ds: DataSource | undefined;
  afterEach(async () => {
    await ds?.destroy();
    ds = undefined;
  });

  it('without it, a rollback on the shared SQLite connection can undo a concurrent commit (why it exists)', async () => {
    ds = await openMemoryDb();
    expect(await raceCommitAndRollback(ds)).not.toBe(100);
  });

  it('queues transactions so a rollback never touches another transaction', async () => {
    ds = await openMemoryDb();
    serializeSqliteTransactions(ds);
    expect(await raceCommitAndRollback(ds)).toBe(100);
  });

  it('runs a transaction opened inside a queued one at once (no deadlock) and survives many concurrent ones', async () => {
    ds = await openMemoryDb();
    serializeSqliteTransactions(ds);
    const repoManager = ds.manager;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        ds!.transaction(async (m) => {
          await m.query('INSERT INTO credits (amount) VALUES (?)', [i]);
          await repoManager.transaction((inner) => inner.query('INSERT INTO credits (amount) VALUES (1)'));
        }),
      ),
    );
    const [row] = await ds.query('SELECT COUNT(*) AS n, SUM(amount) AS total FROM credits');
    expect(Number(row.n)).toBe(100);
    expect(Number(row.total)).toBe((49 * 50) / 2 + 50);
  });

  describe('runOutsideTransactions (raw writes of the ledger and the log)', () => {
    type Raw = { inTransaction: boolean; prepare(sql: string): { run(...args: unknown[]): unknown } };
    const rawOf = (source: DataSource) => (source.driver as unknown as { databaseConnection: Raw }).databaseConnection;

    /** A console transaction that is open across awaits and finally rolls back; a raw credit arrives meanwhile. */
    async function rawWriteDuringRollback(source: DataSource, write: (raw: Raw) => Promise<unknown>): Promise<number> {
      let opened!: () => void;
      const isOpen = new Promise<void>((resolve) => (opened = resolve));
      const failing = source.transaction(async (m) => {
        await m.query('INSERT INTO credits (amount) VALUES (1)');
        opened();
        await tick();
        await tick();
        throw new Error('boom');
      });
      await isOpen;
      const raw = rawOf(source);
      expect(raw.inTransaction).toBe(true);
      const written = write(raw);
      await Promise.allSettled([failing, written]);
      const [row] = await source.query('SELECT COALESCE(SUM(amount), 0) AS total FROM credits');
      return Number(row.total);
    }

    it('a raw write issued while a transaction is open joins it and is lost with its rollback (why it exists)', async () => {
      ds = await openMemoryDb();
      serializeSqliteTransactions(ds);
      expect(await rawWriteDuringRollback(ds, async (raw) => raw.prepare('INSERT INTO credits (amount) VALUES (100)').run())).toBe(0);
    });

    it('also waits out a transaction TypeORM opens itself, outside the queue (as save() does), without deadlocking', async () => {
      ds = await openMemoryDb();
      serializeSqliteTransactions(ds);
      const runner = ds.createQueryRunner();
      await runner.startTransaction();
      await runner.query('INSERT INTO credits (amount) VALUES (1)');
      const raw = rawOf(ds);
      const written = runOutsideTransactions(ds, raw, () => raw.prepare('INSERT INTO credits (amount) VALUES (100)').run());
      await tick();
      await tick();
      await runner.rollbackTransaction();
      await runner.release();
      await expect(
        Promise.race([written.then(() => 'written'), new Promise((resolve) => setTimeout(() => resolve('stuck'), 1000))]),
      ).resolves.toBe('written');
      const [row] = await ds.query('SELECT COALESCE(SUM(amount), 0) AS total FROM credits');
      expect(Number(row.total)).toBe(100);
    });

    it('waits for the open transaction to end, then writes for good; runs at once on an idle connection', async () => {
      ds = await openMemoryDb();
      serializeSqliteTransactions(ds);
      const source = ds;
      const write = (raw: Raw) => runOutsideTransactions(source, raw, () => raw.prepare('INSERT INTO credits (amount) VALUES (100)').run());
      expect(await rawWriteDuringRollback(ds, write)).toBe(100);

      let ran = false;
      const idle = runOutsideTransactions(ds, rawOf(ds), () => (ran = true));
      expect(ran).toBe(true);
      await expect(idle).resolves.toBe(true);
      await expect(
        runOutsideTransactions(ds, rawOf(ds), () => {
          throw new Error('bad write');
        }),
      ).rejects.toThrow('bad write');
    });
  });
});
