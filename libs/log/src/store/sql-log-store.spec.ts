import { afterEach, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { type JobLockService, serializeSqliteTransactions } from '@gw/database';
import type { HourlyDashboardService } from '../aggregate/hourly-dashboard.service.js';
import type { LogStatService } from '../aggregate/log-stat.service.js';
import { LogEntity } from '../log.entity.js';
import type { LogRepository } from '../log.repository.js';
import { toLogRow } from '../log-row.js';
import { LogType } from '../log-type.js';
import { CreateLogs1732262405000 } from '../migrations/1732262405000-create-logs.js';
import type { LogPurgeService } from '../retention/log-purge.service.js';
import { SqlLogStore } from './sql-log-store.js';

async function open(entities: Array<typeof LogEntity>): Promise<DataSource> {
  const ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities, migrations: [CreateLogs1732262405000] });
  await ds.initialize();
  serializeSqliteTransactions(ds);
  await ds.query('CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL)');
  await ds.runMigrations();
  return ds;
}

/** Only the writing side is exercised: the reading collaborators are never called. */
function storeOn(logs: DataSource): SqlLogStore {
  const unused = {} as never;
  return new SqlLogStore(
    logs,
    unused as JobLockService,
    unused as LogRepository,
    unused as LogStatService,
    unused as HourlyDashboardService,
    unused as LogPurgeService,
  );
}

const row = (requestId: string) => toLogRow({ type: LogType.TopUp, userId: 1, username: 'ann', quota: 5, createdAt: 1, requestId });

describe('SqlLogStore.append with a caller transaction', () => {
  const opened: DataSource[] = [];
  afterEach(async () => {
    for (const ds of opened.splice(0)) await ds.destroy();
  });

  /** Credits the ledger and logs it in one transaction of `main`, which then fails. */
  async function failingTopUp(main: DataSource, store: SqlLogStore, requestId: string): Promise<void> {
    await main
      .transaction(async (manager) => {
        await manager.query('INSERT INTO ledger (amount) VALUES (5)');
        await store.append([row(requestId)], manager);
        throw new Error('payment failed');
      })
      .catch(() => undefined);
  }

  it('logs on the main database: the row rolls back with the transaction that carried it', async () => {
    const main = await open([LogEntity]);
    opened.push(main);
    const store = storeOn(main);
    await failingTopUp(main, store, 'rolled-back');
    await store.append([row('kept')]);
    expect((await main.query('SELECT request_id FROM logs')).map((r: { request_id: string }) => r.request_id)).toEqual(['kept']);
    expect(await store.hasConsumeLog('kept')).toBe(false);
  });

  it('logs on their own database (LOG_SQL_DSN): the row is written there at once, outside the main transaction', async () => {
    const main = await open([]);
    const logs = await open([LogEntity]);
    opened.push(main, logs);
    const store = storeOn(logs);
    await failingTopUp(main, store, 'written-at-once');
    expect(await main.query('SELECT COUNT(*) AS n FROM ledger')).toEqual([{ n: 0 }]);
    expect((await logs.query('SELECT request_id FROM logs')).map((r: { request_id: string }) => r.request_id)).toEqual(['written-at-once']);
    expect(await main.query('SELECT COUNT(*) AS n FROM logs')).toEqual([{ n: 0 }]);
  });
});
