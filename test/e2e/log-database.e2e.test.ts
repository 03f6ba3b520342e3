import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { JobLockService, LOG_DATA_SOURCE, LOG_JOB_LOCKS } from '@gw/database';
import { LogAggregatorService, LogRetentionService, LogService, LogType } from '@gw/log';
import { createTestDatabase, type TestDatabase, type TestDbKind } from '../support/databases.js';
import { CHAT, ratioQuota, type RelayFixture, startRelayFixture, waitFor } from './relay-fixture.js';

const DAY = 86_400;
const HOUR = 3600;
const REQUESTS = 3;

/**
 * Main database and LOG_SQL_DSN database pairs: two SQLite files always; MariaDB with a second MariaDB
 * database, and MariaDB with PostgreSQL, when the CI provides those servers.
 */
function pairs(): Array<[TestDbKind, TestDbKind]> {
  const list: Array<[TestDbKind, TestDbKind]> = [['sqlite', 'sqlite']];
  if (process.env.TEST_MYSQL_URL) list.push(['mysql', 'mysql']);
  if (process.env.TEST_MYSQL_URL && process.env.TEST_POSTGRES_URL) list.push(['mysql', 'postgres']);
  return list;
}

/** LOG_SQL_DSN for a test database: its server DSN, or `sqlite:<file>`. */
function logDsn(db: TestDatabase): string {
  return db.kind === 'sqlite' ? `sqlite:${db.env.SQLITE_PATH}` : db.env.SQL_DSN!;
}

describe.each(pairs())('logs on their own database (main %s, LOG_SQL_DSN %s)', (mainKind, logKind) => {
  let logDb: TestDatabase;
  let fx: RelayFixture;
  let main: DataSource;
  let logs: DataSource;
  let key: string;
  let tokenId: number;
  let channelId: number;
  const started = Math.floor(Date.now() / 1000);

  const q = (name: string) => (logKind === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const p = (n: number) => (logKind === 'postgres' ? `$${n}` : '?');
  const count = async (ds: DataSource, sql: string, params: unknown[] = []) => Number((await ds.query(sql, params))[0]?.n ?? 0);
  const data = async (path: string, client = fx.root) => {
    const res = await client.get(path);
    expect(res.body.success, res.text).toBe(true);
    return res.body.data;
  };

  beforeAll(async () => {
    logDb = await createTestDatabase(logKind);
    fx = await startRelayFixture(mainKind, { LOG_SQL_DSN: logDsn(logDb) });
    main = fx.ds;
    logs = fx.gw.gateway.app.get<DataSource>(LOG_DATA_SOURCE);
    channelId = await fx.channel();
    ({ id: tokenId, key } = await fx.token());
    for (let i = 0; i < REQUESTS; i++) {
      const answer = await fx.openai(key).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: `hi ${i}` }] });
      expect(answer.choices[0]?.message.content).toBeTruthy();
    }
    // Settling (billing and the log row) runs after the answer ends.
    await waitFor(async () => {
      await fx.gw.gateway.app.get(LogService).flush();
      const n = await count(logs, `SELECT COUNT(*) AS n FROM logs WHERE type = 2 AND user_id = ${p(1)}`, [fx.user.id]);
      return n >= REQUESTS ? n : undefined;
    }, 'the consume logs on the log database');
  }, 180_000);

  afterAll(async () => {
    await fx?.close();
    await logDb?.drop();
  });

  it('the log tables live on the log database (created there, empty at first); quota_data and the ledger stay on the main one', async () => {
    expect(logs).not.toBe(main);
    const logRunner = logs.createQueryRunner();
    const mainRunner = main.createQueryRunner();
    try {
      for (const table of ['logs', 'log_hourly', 'log_aggregate_cursors', 'job_locks'])
        expect(await logRunner.hasTable(table), table).toBe(true);
      for (const table of ['users', 'tokens', 'channels', 'quota_data']) expect(await logRunner.hasTable(table), table).toBe(false);
      for (const table of ['logs', 'log_hourly']) expect(await mainRunner.hasTable(table), table).toBe(false);
      for (const table of ['users', 'tokens', 'quota_data']) expect(await mainRunner.hasTable(table), table).toBe(true);
    } finally {
      await logRunner.release();
      await mainRunner.release();
    }
  });

  it('/readyz reports the log database beside the main one', async () => {
    const ready = await fetch(`${fx.gw.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, checks: { database: 'ok', log_database: 'ok' } });
  });

  it('relay requests write their consume logs to the log database; the ledger on the main database charges the same quota', async () => {
    const rows: Array<Record<string, unknown>> = await logs.query(
      `SELECT quota, token_id, channel_id, model_name FROM logs WHERE type = 2 AND user_id = ${p(1)} ORDER BY id`,
      [fx.user.id],
    );
    expect(rows).toHaveLength(REQUESTS);
    for (const row of rows) {
      expect(Number(row.quota)).toBe(ratioQuota(CHAT));
      expect(Number(row.token_id)).toBe(tokenId);
      expect(Number(row.channel_id)).toBe(channelId);
      expect(row.model_name).toBe(CHAT);
    }
    expect((await fx.userRow(fx.user.id)).usedQuota).toBe(REQUESTS * ratioQuota(CHAT));
    expect((await fx.tokenRow(tokenId)).usedQuota).toBe(REQUESTS * ratioQuota(CHAT));
  });

  it('/api/log/ and /api/log/self list from the log database, with channel names looked up on the main one and keyset paging', async () => {
    const all = await data('/api/log/?type=2&page_size=2&p=1');
    expect(all.total).toBe(REQUESTS);
    expect(all.items).toHaveLength(2);
    expect(all.items[0].channel_name).toMatch(/^relay-ch-/);
    const next = await data(`/api/log/?type=2&page_size=2&p=1&cursor=${all.next_cursor}`);
    const ids = (page: { items: Array<{ id: number }> }) => page.items.map((item) => item.id);
    const consumeIds: Array<{ id: unknown }> = await logs.query('SELECT id FROM logs WHERE type = 2 ORDER BY created_at DESC, id DESC');
    expect([...ids(all), ...ids(next)]).toEqual(consumeIds.map((row) => Number(row.id)));

    const own = await data('/api/log/self/?type=2', fx.user.client);
    expect(own.total).toBe(REQUESTS);
    expect(
      own.items.every((item: { channel_name: string; model_name: string }) => item.channel_name === '' && item.model_name === CHAT),
    ).toBe(true);
  });

  it('/api/log/stat and /api/log/self/stat sum the log database', async () => {
    const expected = REQUESTS * ratioQuota(CHAT);
    const stat = await data(`/api/log/stat?type=2&start_timestamp=${started - DAY}`);
    expect(stat.quota).toBe(expected);
    expect((await data(`/api/log/self/stat?type=2&model_name=${CHAT}`, fx.user.client)).quota).toBe(expected);
  });

  it('the hourly sums on the log database equal its logs, and /api/data/ reads them', async () => {
    await fx.gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    const fromLogs: Array<Record<string, unknown>> = await logs.query(
      `SELECT model_name AS name, created_at - created_at % ${HOUR} AS hour, COUNT(*) AS n, SUM(quota) AS quota
       FROM logs WHERE type = 2 GROUP BY model_name, created_at - created_at % ${HOUR} ORDER BY hour, name`,
    );
    const summed: Array<Record<string, unknown>> = await logs.query(
      `SELECT name, hour, ${q('count')} AS n, quota FROM log_hourly WHERE dim = 'model' ORDER BY hour, name`,
    );
    const normal = (rows: Array<Record<string, unknown>>) => rows.map((r) => [r.name, r.hour, r.n, r.quota].map(String).join('|'));
    expect(normal(summed)).toEqual(normal(fromLogs));
    expect(summed.length).toBeGreaterThan(0);

    const range = `start_timestamp=${started - DAY}&end_timestamp=${started + DAY}`;
    const byModel = (await data(`/api/data/?${range}`)) as Array<{ model_name: string; count: number; quota: number }>;
    const chat = byModel.filter((row) => row.model_name === CHAT);
    expect(chat.reduce((sum, row) => sum + row.count, 0)).toBe(REQUESTS);
    expect(chat.reduce((sum, row) => sum + row.quota, 0)).toBe(REQUESTS * ratioQuota(CHAT));
    const byUser = (await data(`/api/data/users?${range}`)) as Array<{ username: string; count: number }>;
    expect(byUser.filter((row) => row.username.startsWith('relay')).reduce((sum, row) => sum + row.count, 0)).toBe(REQUESTS);
  });

  it('retention deletes old rows on the log database under a lease held there, and leaves the recent ones', async () => {
    const writer = fx.gw.gateway.app.get(LogService);
    for (let i = 0; i < 50; i++)
      writer.record({
        type: LogType.Consume,
        userId: fx.user.id,
        username: 'old',
        modelName: CHAT,
        quota: 1,
        createdAt: started - 40 * DAY - i,
      });
    await writer.flush();
    expect(await count(logs, `SELECT COUNT(*) AS n FROM logs WHERE created_at < ${p(1)}`, [started - 30 * DAY])).toBe(50);

    await fx.setOption('LogRetentionDays', 30);
    expect(await fx.gw.gateway.app.get(LogRetentionService).runOnce()).toBe(50);
    expect(await count(logs, `SELECT COUNT(*) AS n FROM logs WHERE created_at < ${p(1)}`, [started - 30 * DAY])).toBe(0);
    expect(await count(logs, 'SELECT COUNT(*) AS n FROM logs WHERE type = 2')).toBe(REQUESTS);

    // The retention lease is keyed by the log database: instances sharing the logs share it (Redis or the log
    // database's own lease table), whichever main database they use.
    const logLocks = fx.gw.gateway.app.get<JobLockService>(LOG_JOB_LOCKS);
    expect(logLocks).not.toBe(fx.gw.gateway.app.get(JobLockService));
    expect(logLocks.redisKey('log-retention')).not.toBe(fx.gw.gateway.app.get(JobLockService).redisKey('log-retention'));
    if (!fx.gw.config.redis) {
      expect(await count(logs, "SELECT COUNT(*) AS n FROM job_locks WHERE name = 'log-retention'")).toBe(1);
      expect(await count(main, "SELECT COUNT(*) AS n FROM job_locks WHERE name = 'log-retention'")).toBe(0);
    }
  });
});
