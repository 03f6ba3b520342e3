import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource, type QueryRunner } from 'typeorm';
import { SchedulerRegistry } from '@nestjs/schedule';
import { cancelScheduled } from '@gw/core';
import { LogAggregatorService } from '@gw/log';
import { HourTextsWarmer } from '../../libs/log/src/aggregate/hour-texts-warmer.service.js';
import { IndexLogFilters1732262405300 } from '../../libs/log/src/migrations/1732262405300-index-log-filters.js';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases, type TestDbKind } from '../support/databases.js';
import { fillLogs } from '../support/log-fill.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const ROWS = 200_000;
const DAY = 86_400;
/** The tables whose reads must go through an index (the aggregate cursor is a one-row table). */
const LOG_TABLES = /\b(logs|log_hourly|log_daily|log_series_text|quota_data)\b/;

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
    // The background pass of dashboard texts runs every minute: its reads would land among a request's captured
    // ones at any time. It is stopped here and its reads are checked on their own (below).
    cancelScheduled(gw.gateway.app.get(SchedulerRegistry), 'dashboard-hour-texts');
    dataSource = gw.gateway.app.get(DataSource);
    // 200 users, 300 tokens, 40 models, 20 channels, 10 groups, one row in 50 a top-up, over 90 days.
    await fillLogs(dataSource, {
      rows: ROWS,
      from: now - 90 * DAY,
      span: 90 * DAY,
      users: 200,
      firstUserId: 2,
      tokens: 300,
      models: 40,
      channels: 20,
      groups: 10,
      topUpEvery: 50,
      requestPrefix: 'plan-',
    });
    // The hourly and daily sums cover every row, and quota_data holds what the dashboard export would have gathered.
    await sumLogsInSql(gw, dataSource, kind);
    await dataSource.query(
      `INSERT INTO quota_data (user_id, username, model_name, created_at, token_used, count, quota)
       SELECT user_id, username, model_name, created_at - created_at % 3600, SUM(prompt_tokens + completion_tokens), COUNT(*), SUM(quota)
       FROM logs WHERE type = 2 GROUP BY user_id, username, model_name, created_at - created_at % 3600`,
    );
    // Fresh statistics, as a long-running database has them.
    // VACUUM also sets the visibility map that autovacuum keeps on a live database (index-only scans need it).
    if (kind === 'postgres') await dataSource.query('VACUUM ANALYZE logs, log_hourly, log_daily, quota_data');
    if (kind === 'mysql') await dataSource.query('ANALYZE TABLE logs, log_hourly, log_daily, quota_data');
    if (kind === 'sqlite') await dataSource.query('ANALYZE');
    // Signed in only now: on SQLite the statements above hold the event loop for seconds, long enough for a
    // kept-alive connection to time out on the server just as the client reuses it.
    root = await setupRoot(gw);
    const prototype = Object.getPrototypeOf(dataSource.createQueryRunner()) as QueryRunner;
    const original = prototype.query;
    prototype.query = function (this: QueryRunner, sql: string, params?: unknown[], ...rest: unknown[]) {
      if (capturing && /^\s*SELECT/i.test(sql) && LOG_TABLES.test(sql)) captured.push({ sql, params: params ?? [] });
      return (original as (...args: unknown[]) => Promise<unknown>).call(this, sql, params, ...rest);
    } as QueryRunner['query'];
  }, 300_000);

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

  it('a stat of one key reads its own hourly sums by the key, not the whole dimension by hour', async () => {
    // Without statistics SQLite preferred the covering (dim, hour, …) index: every username's hours (2.7 s at 10 M logs).
    const queries = (await listQueries(`/api/log/stat?username=user-7&${range}`)).filter((q) => /FROM log_hourly/.test(q.sql));
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) {
      const plan = await explain(dataSource, kind, query.sql, query.params);
      expect(plan, `${query.sql}\n${plan}`).toMatch(/idx_log_hourly_dim_user_id_name_hour/);
    }
  });

  it.each([
    ['overview, 7 days', `/api/data/?start_timestamp=${now - 7 * DAY}&end_timestamp=${now}`],
    ['overview, 90 days', `/api/data/?start_timestamp=${now - 90 * DAY}&end_timestamp=${now}`],
    ['overview per day, 90 days', `/api/data/?start_timestamp=${now - 90 * DAY}&end_timestamp=${now}&default_time=day`],
    ['per user', `/api/data/users?start_timestamp=${now - 7 * DAY}&end_timestamp=${now}`],
    ['per user per day, 30 days', `/api/data/users?start_timestamp=${now - 30 * DAY}&end_timestamp=${now}&default_time=week`],
    ['one user', `/api/data/?username=user-7&start_timestamp=${now - 7 * DAY}&end_timestamp=${now}`],
    ['own', `/api/data/self?start_timestamp=${now - 7 * DAY}&end_timestamp=${now}`],
  ])('dashboard %s uses an index or the hourly sums', async (_name, path) => {
    await expectIndexed(path);
  });

  it('the background pass of dashboard texts reads through an index', async () => {
    // Every text dropped, so the pass renders every kept hour again.
    await dataSource.query('UPDATE log_series_text SET gen = gen + 1, body = NULL');
    captured.length = 0;
    capturing = true;
    const rendered = await gw.gateway.app.get(HourTextsWarmer).tick();
    capturing = false;
    expect(rendered).toBeGreaterThan(0);
    const queries = [...captured];
    expect(queries.some((q) => /FROM log_hourly/.test(q.sql))).toBe(true);
    for (const query of queries) {
      const plan = await explain(dataSource, kind, query.sql, query.params);
      expect(fullScan(kind, plan), `${query.sql}\n${plan}`).toBe(false);
    }
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
  if (kind === 'postgres') return /Seq Scan on (logs|log_hourly|log_daily|log_series_text|quota_data)\b/.test(plan);
  return plan
    .split('\n')
    .some(
      (line) => /^SCAN (logs|log|log_hourly|log_daily|log_series_text|quota_data|q)\b/.test(line) && !/USING (COVERING )?INDEX/.test(line),
    );
}

/**
 * The hourly and daily sums of every consume row, summed by the database in a few GROUP BYs (the aggregator
 * sums in steps that yield to requests, minutes for 200 k rows on a busy machine; that its sums are exact is
 * what log-aggregates and log-daily test). The aggregator stops first, and whatever it summed already stays.
 */
async function sumLogsInSql(gw: TestGateway, dataSource: DataSource, kind: TestDbKind): Promise<void> {
  await gw.gateway.app.get(LogAggregatorService).onModuleDestroy();
  const q = (name: string) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const [cursor] = await dataSource.query("SELECT last_id FROM log_aggregate_cursors WHERE name = 'hourly'");
  const covered = Number(cursor?.last_id ?? 0);
  const [{ id: highest }] = await dataSource.query('SELECT MAX(id) AS id FROM logs');
  const channel = `CAST(channel_id AS ${kind === 'mysql' ? 'CHAR' : 'TEXT'})`;
  const keys: Array<[string, string, string]> = [
    ['all', '0', "''"],
    ['user', 'user_id', "''"],
    ['username', '0', 'username'],
    ['token', '0', 'token_name'],
    ['model', '0', 'model_name'],
    ['channel', '0', channel],
    ['group', '0', q('group')],
  ];
  const sums = `COUNT(*), SUM(quota), SUM(prompt_tokens), SUM(completion_tokens)`;
  const columns = `dim, user_id, name, ${q('count')}, quota, prompt_tokens, completion_tokens`;
  for (const [dim, userId, name] of keys) {
    const groupBy = [userId, name].filter((c) => c !== '0' && c !== "''");
    for (const [table, bucket, size] of [
      ['log_hourly', 'hour', 3600],
      ['log_daily', 'day', DAY],
    ] as const) {
      if (table === 'log_daily' && dim !== 'model' && dim !== 'username') continue;
      const at = `created_at - created_at % ${size}`;
      await dataSource.query(
        `INSERT INTO ${table} (${columns}, ${q(bucket)})
         SELECT '${dim}', ${userId}, ${name}, ${sums}, ${at} FROM logs WHERE type = 2 AND id > ${covered}
         GROUP BY ${[...groupBy, at].join(', ')}`,
      );
    }
  }
  await dataSource.query(`UPDATE log_aggregate_cursors SET last_id = ${Number(highest)} WHERE name = 'hourly'`);
}
