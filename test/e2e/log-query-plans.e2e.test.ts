import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource, type QueryRunner } from 'typeorm';
import { LogAggregatorService, LogType } from '@gw/log';
import { IndexLogFilters1732262405300 } from '../../libs/log/src/migrations/1732262405300-index-log-filters.js';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases, type TestDbKind } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const ROWS = 20_000;
const DAY = 86_400;
/** The tables whose reads must go through an index (the aggregate cursor is a one-row table). */
const LOG_TABLES = /\b(logs|log_hourly|quota_data)\b/;

/**
 * Every filter of the log list must reach its rows through an index, never a full scan of `logs`. The SQL the
 * list endpoint really runs is captured from the query runner and put through the database's own EXPLAIN, so
 * the assertion follows the plan, not a timing.
 */
describe.each(testDatabases())('log list query plans on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let dataSource: DataSource;
  const captured: Array<{ sql: string; params: unknown[] }> = [];
  let capturing = false;
  const now = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    dataSource = gw.gateway.app.get(DataSource);
    const models = Array.from({ length: 40 }, (_, i) => `model-${i}`);
    for (let start = 0; start < ROWS; start += 1000) {
      const values = [];
      for (let i = start; i < start + 1000; i++)
        values.push({
          userId: 2 + (i % 200),
          username: `user-${i % 200}`,
          tokenName: `token-${i % 300}`,
          tokenId: 1 + (i % 300),
          modelName: models[i % models.length],
          channelId: 1 + (i % 20),
          group: `group-${i % 10}`,
          type: i % 50 === 0 ? LogType.TopUp : LogType.Consume,
          createdAt: now - 90 * DAY + Math.floor((i * 90 * DAY) / ROWS),
          requestId: `plan-${i}`,
          quota: 1,
        });
      await dataSource.createQueryBuilder().insert().into('logs').values(values).updateEntity(false).execute();
      // A turn of the event loop: the in-process gateway closes its idle keep-alive sockets on time.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The hourly sums cover every row, and quota_data holds what the dashboard export would have gathered.
    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    await dataSource.query(
      `INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, count, quota)
       SELECT user_id, username, model_name, created_at - created_at % 3600, SUM(prompt_tokens + completion_tokens), COUNT(*), SUM(quota)
       FROM logs WHERE type = 2 GROUP BY user_id, username, model_name, created_at - created_at % 3600`,
    );
    // Fresh statistics, as a long-running database has them.
    // VACUUM also sets the visibility map that autovacuum keeps on a live database (index-only scans need it).
    if (kind === 'postgres') await dataSource.query('VACUUM ANALYZE logs, log_hourly, quota_data');
    if (kind === 'mysql') await dataSource.query('ANALYZE TABLE logs, log_hourly, quota_data');
    if (kind === 'sqlite') await dataSource.query('ANALYZE');
    const prototype = Object.getPrototypeOf(dataSource.createQueryRunner()) as QueryRunner;
    const original = prototype.query;
    prototype.query = function (this: QueryRunner, sql: string, params?: unknown[], ...rest: unknown[]) {
      if (capturing && /^\s*SELECT/i.test(sql) && LOG_TABLES.test(sql)) captured.push({ sql, params: params ?? [] });
      return (original as (...args: unknown[]) => Promise<unknown>).call(this, sql, params, ...rest);
    } as QueryRunner['query'];
  }, 120_000);

  afterAll(async () => {
    await gw?.close();
  });

  async function listQueries(path: string): Promise<Array<{ sql: string; params: unknown[] }>> {
    captured.length = 0;
    capturing = true;
    const res = await root.get(path);
    capturing = false;
    expect(res.body.success, res.text).toBe(true);
    expect(captured.length).toBeGreaterThan(0);
    if (process.env.SHOW_PLANS) console.log(path);
    return [...captured];
  }

  /** Every query the endpoint runs on a log table reaches its rows through an index. */
  async function expectIndexed(path: string): Promise<void> {
    for (const query of await listQueries(path)) {
      const plan = await explain(dataSource, kind, query.sql, query.params);
      if (process.env.SHOW_PLANS) console.log(`${query.sql}\n${plan}`);
      expect(fullScan(kind, plan), `${query.sql}\n${plan}`).toBe(false);
    }
  }

  it.each([
    ['type', '/api/log/?type=1'],
    ['time range', `/api/log/?start_timestamp=${now - 2 * DAY}&end_timestamp=${now - DAY}`],
    ['user', '/api/log/?username=user-7'],
    ['token', '/api/log/?token_name=token-11'],
    ['model', '/api/log/?model_name=model-3'],
    ['group', '/api/log/?group=group-4'],
    ['channel', '/api/log/?channel=5'],
    ['type and model', '/api/log/?type=2&model_name=model-9'],
    ['deep page', '/api/log/?type=1&p=3&page_size=100'],
    ['very deep page', '/api/log/?p=12&page_size=100'],
    ['keyset page', `/api/log/?cursor=${now - DAY}_${ROWS}&page_size=100`],
    ['keyset page of a model', `/api/log/?model_name=model-3&cursor=${now - 30 * DAY}_${ROWS}`],
  ])('filter by %s uses an index', async (_name, path) => {
    await expectIndexed(path);
  });

  it('counts a total up to the cap only, and says when it is capped', async () => {
    const all = (await root.get('/api/log/?page_size=5')).body.data;
    expect(all).toMatchObject({ total: 10_000, total_capped: true, page: 1, page_size: 5 });
    const topUps = (await root.get('/api/log/?type=1&page_size=5')).body.data;
    expect(topUps.total).toBe(ROWS / 50);
    expect(topUps.total_capped).toBeUndefined();
  });

  it('a deep numbered page (found through the index first) holds the rows of the plain query', async () => {
    const deep = (await root.get('/api/log/?p=30&page_size=40')).body.data.items.map((i: { id: number }) => i.id);
    const rows: Array<{ id: unknown }> = await dataSource.query(
      'SELECT id FROM logs ORDER BY created_at DESC, id DESC LIMIT 40 OFFSET 1160',
    );
    expect(deep).toHaveLength(40);
    expect(deep).toEqual(rows.map((row) => Number(row.id)));
  });

  it('a keyset page (next_cursor) holds the same rows as the numbered page', async () => {
    const first = (await root.get('/api/log/?model_name=model-3&page_size=7')).body.data;
    const second = (await root.get(`/api/log/?model_name=model-3&page_size=7&p=2`)).body.data;
    const byCursor = (await root.get(`/api/log/?model_name=model-3&page_size=7&cursor=${first.next_cursor}`)).body.data;
    expect(byCursor.items.map((i: { id: number }) => i.id)).toEqual(second.items.map((i: { id: number }) => i.id));
    expect((await root.get('/api/log/?cursor=abc')).body).toEqual({
      success: false,
      message: 'cursor must be the next_cursor of a previous page',
    });
  });

  const range = `start_timestamp=${now - 7 * DAY + 123}&end_timestamp=${now - 456}`;
  it.each([
    ['no filter', '/api/log/stat'],
    ['a range', `/api/log/stat?${range}`],
    ['user', `/api/log/stat?username=user-7&${range}`],
    ['token', '/api/log/stat?token_name=token-11'],
    ['model', `/api/log/stat?model_name=model-3&${range}`],
    ['channel', '/api/log/stat?channel=5'],
    ['group', '/api/log/stat?group=group-4'],
    ['own rows', `/api/log/self/stat?${range}`],
  ])('stat with %s uses an index or the hourly sums', async (_name, path) => {
    await expectIndexed(path);
  });

  it.each([
    ['overview, 7 days', `/api/data/?start_timestamp=${now - 7 * DAY}&end_timestamp=${now}`],
    ['overview, 90 days', `/api/data/?start_timestamp=${now - 90 * DAY}&end_timestamp=${now}`],
    ['per user', `/api/data/users?start_timestamp=${now - 7 * DAY}&end_timestamp=${now}`],
    ['one user', `/api/data/?username=user-7&start_timestamp=${now - 7 * DAY}&end_timestamp=${now}`],
    ['own', `/api/data/self?start_timestamp=${now - 7 * DAY}&end_timestamp=${now}`],
  ])('dashboard %s uses an index or the hourly sums', async (_name, path) => {
    await expectIndexed(path);
  });

  it('the plan check itself sees a full scan when there is one', async () => {
    const plan = await explain(dataSource, kind, 'SELECT id FROM logs WHERE quota + 0 = 5', []);
    expect(fullScan(kind, plan), plan).toBe(true);
  });

  it('the index migration adds what an adopted table lacks and keeps an index that already covers a filter', async () => {
    const runner = dataSource.createQueryRunner();
    try {
      // As on a database adopted from new-api: no group index, and the type filter served by an index of its own name.
      await runner.dropIndex('logs', 'idx_logs_group_created_at');
      await runner.dropIndex('logs', 'idx_logs_type_created_at');
      await runner.query(`CREATE INDEX legacy_logs_type ON logs (type, created_at, id)`);
      await new IndexLogFilters1732262405300().up(runner);
      await new IndexLogFilters1732262405300().up(runner);
      const names = ((await runner.getTable('logs'))?.indices ?? []).map((existing) => existing.name);
      expect(names).toContain('idx_logs_group_created_at');
      expect(names).toContain('legacy_logs_type');
      expect(names).not.toContain('idx_logs_type_created_at');
    } finally {
      await runner.release();
    }
  });
});

async function explain(dataSource: DataSource, kind: TestDbKind, sql: string, params: unknown[]): Promise<string> {
  const prefix = kind === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN ';
  const rows: Record<string, unknown>[] = await dataSource.query(prefix + sql, params);
  if (kind === 'mysql') return rows.map((row) => `table=${row.table} type=${row.type} key=${row.key}`).join('\n');
  if (kind === 'postgres') return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
  return rows.map((row) => String(row.detail)).join('\n');
}

/** Whether the plan reads the whole `logs` table (an index scan in order is fine: it stops at the limit). */
function fullScan(kind: TestDbKind, plan: string): boolean {
  // A line without a table is a plan the optimizer answered without reading one (MAX(id): "tables optimized away");
  // a derived table is the capped count's own bounded subquery (at most cap + 1 rows).
  if (kind === 'mysql')
    return plan
      .split('\n')
      .some(
        (line) => !/table=(null|undefined|<derived\d+>)/.test(line) && (/type=ALL\b/.test(line) || /key=(null|undefined)\b/.test(line)),
      );
  if (kind === 'postgres') return /Seq Scan on (logs|log_hourly|quota_data)\b/.test(plan);
  return plan.split('\n').some((line) => /^SCAN (logs|log|log_hourly|quota_data|q)\b/.test(line) && !/USING (COVERING )?INDEX/.test(line));
}
