import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { LOG_DATA_SOURCE } from '@gw/database';
import { LogAggregatorService } from '@gw/log';
import { openRawDb } from '../fixtures/new-api/raw-db.js';
import { NEW_API_TABLES, tableDdl } from '../fixtures/new-api/schema.js';
import { insertRows, newApiRows, OLD, seedNewApiDatabase } from '../fixtures/new-api/seed.js';
import { createTestDatabase, type TestDatabase, type TestDbKind, testDatabases } from '../support/databases.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

const T0 = 1_700_000_000;

/** Consume rows as new-api writes them into its LOG_DB (no request_id column there yet). */
const LOG_DB_ROWS = [1, 2, 3].map((n) => ({
  id: n,
  user_id: OLD.alice.id,
  created_at: T0 + n * 3600,
  type: 2,
  content: `log-db row ${n}`,
  username: 'alice',
  token_name: 'old-token',
  model_name: 'log-db-model',
  quota: 100 * n,
  prompt_tokens: n,
  completion_tokens: n,
  use_time: 1,
  is_stream: false,
  channel_id: OLD.single.id,
  token_id: OLD.aliceToken.id,
  group: 'default',
  ip: '',
  other: '{}',
}));

/**
 * An operator of new-api with LOG_SQL_DSN moves to the gateway: the main database is new-api's (with the
 * logs it held before LOG_SQL_DSN was set) and the log database is new-api's LOG_DB, holding only `logs`.
 */
describe.each(testDatabases())('new-api main database and new-api log database (LOG_SQL_DSN) on %s', (kind: TestDbKind) => {
  let main: TestDatabase;
  let logDb: TestDatabase;
  let gw: TestGateway;
  let logs: DataSource;

  beforeAll(async () => {
    main = await createTestDatabase(kind);
    await seedNewApiDatabase(main, 'http://127.0.0.1:9');
    logDb = await createTestDatabase(kind);
    const raw = await openRawDb(logDb);
    try {
      for (const statement of tableDdl(raw.dialect, NEW_API_TABLES.find((table) => table.name === 'logs')!)) await raw.query(statement);
      await insertRows(raw, { logs: LOG_DB_ROWS });
    } finally {
      await raw.close();
    }
    const dsn = kind === 'sqlite' ? `sqlite:${logDb.env.SQLITE_PATH}` : logDb.env.SQL_DSN!;
    gw = await startTestGateway(kind, { LOG_SQL_DSN: dsn }, main);
    logs = gw.gateway.app.get<DataSource>(LOG_DATA_SOURCE);
  }, 120_000);

  afterAll(async () => {
    await gw?.close();
    await main?.drop();
    await logDb?.drop();
  });

  it('starts, adopts the log database (hourly sums added, request_id added) and leaves the main database’s old logs where they were', async () => {
    const runner = logs.createQueryRunner();
    try {
      expect(await runner.hasTable('log_hourly')).toBe(true);
      expect(await runner.hasColumn('logs', 'request_id')).toBe(true);
    } finally {
      await runner.release();
    }
    const [{ n }] = await gw.gateway.app.get(DataSource).query('SELECT COUNT(*) AS n FROM logs');
    expect(Number(n)).toBe(newApiRows('http://127.0.0.1:9').logs!.length);
  });

  it('the log pages and stats read the log database: new-api’s LOG_DB rows, summed in the background', async () => {
    const root = gw.client();
    expect((await root.login(OLD.root.username, OLD.root.password)).body.success).toBe(true);
    const list = await root.get('/api/log/?type=2');
    expect(list.body.success, list.text).toBe(true);
    expect(list.body.data.items.map((item: { content: string }) => item.content)).toEqual(['log-db row 3', 'log-db row 2', 'log-db row 1']);

    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    const stat = await root.get(`/api/log/stat?type=2&start_timestamp=${T0}&end_timestamp=${T0 + 10 * 3600}`);
    expect(stat.body.data?.quota, stat.text).toBe(600);
    const [{ quota }] = await logs.query("SELECT SUM(quota) AS quota FROM log_hourly WHERE dim = 'all'");
    expect(Number(quota)).toBe(600);
  });
});
