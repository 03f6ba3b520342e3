import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { LogAggregatorService, LogService, LogType } from '@gw/log';
import { createTestDatabase, type TestDatabase, type TestDbKind, testDatabases } from '../support/databases.js';
import { ROOT, setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const HOUR = 3600;
const ROWS_PER_INSTANCE = 3000;

/**
 * Two instances on one database write consume logs at the same time while both aggregate them (each tick
 * racing the other for the cursor); afterwards the hourly sums equal the sums of the logs, bucket by bucket.
 * On SQLite (one process per file) two writers race on one instance.
 */
describe.each(testDatabases())('hourly log sums with two instances on %s', (kind: TestDbKind) => {
  let db: TestDatabase;
  let a: TestGateway;
  let b: TestGateway;
  const now = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    a = await startTestGateway(kind, {}, db);
    // Two gateways in one process cannot share a SQLite file (one waiting on the other's write lock blocks the
    // only thread, so the other never commits); on SQLite two writers race on one instance instead.
    b = kind === 'sqlite' ? a : await startTestGateway(kind, {}, db);
    await setupRoot(a);
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    if (b !== a) await b?.close();
    await db?.drop();
  });

  async function traffic(gw: TestGateway, seed: number): Promise<void> {
    const logs = gw.gateway.app.get(LogService);
    const aggregator = gw.gateway.app.get(LogAggregatorService);
    for (let i = 0; i < ROWS_PER_INSTANCE; i++) {
      const user = 1 + ((i * seed) % 7);
      logs.record({
        type: i % 10 === 0 ? LogType.Error : LogType.Consume,
        userId: user,
        username: `user-${user}`,
        tokenName: `token-${i % 5}`,
        modelName: `model-${(i + seed) % 4}`,
        channelId: 1 + (i % 3),
        group: i % 2 ? 'default' : 'vip',
        quota: 1 + (i % 13),
        promptTokens: i % 11,
        completionTokens: i % 17,
        createdAt: now - (i % 50) * HOUR - (i % 3600),
      });
      // Interleave the writes, the flushes and both instances' aggregation passes.
      if (i % 250 === 0) {
        await logs.flush();
        await aggregator.tick();
      }
    }
    await logs.flush();
  }

  it('the sums equal the logs they cover, per dimension and hour', async () => {
    await Promise.all([traffic(a, 3), traffic(b, 5)]);
    // Every insert has committed: both may now aggregate up to the last id, racing for the cursor.
    await Promise.all([a.gateway.app.get(LogAggregatorService).aggregateUpTo(), b.gateway.app.get(LogAggregatorService).aggregateUpTo()]);

    const ds = a.gateway.app.get(DataSource);
    const q = (name: string) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);
    const hour = `created_at - created_at % ${HOUR}`;
    // [dim, its user_id column, its name column]: the constant ones are left out of GROUP BY.
    const dims: Array<[string, string, string]> = [
      ['all', '0', "''"],
      ['user', 'user_id', "''"],
      ['username', '0', 'username'],
      ['token', '0', 'token_name'],
      ['model', '0', 'model_name'],
      ['group', '0', q('group')],
    ];
    const groupBy = (...columns: string[]) => columns.filter((c) => c !== '0' && c !== "''").join(', ');
    const [{ n: covered }] = await ds.query('SELECT COUNT(*) AS n FROM logs WHERE type = 2');
    expect(Number(covered)).toBe(2 * ROWS_PER_INSTANCE * 0.9);
    for (const [dim, userId, name] of dims) {
      const fromLogs: Record<string, unknown>[] = await ds.query(
        `SELECT ${userId} AS user_id, ${name} AS name, ${hour} AS hour, COUNT(*) AS count, SUM(quota) AS quota,
                SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens
         FROM logs WHERE type = 2 GROUP BY ${groupBy(userId, name, hour)} ORDER BY ${groupBy(userId, name, hour)}`,
      );
      const summed: Record<string, unknown>[] = await ds.query(
        `SELECT user_id, name, hour, count, quota, prompt_tokens, completion_tokens FROM log_hourly WHERE dim = '${dim}' ORDER BY user_id, name, hour`,
      );
      const normal = (rows: Record<string, unknown>[]) =>
        rows.map((r) => [r.user_id, r.name, r.hour, r.count, r.quota, r.prompt_tokens, r.completion_tokens].map(String).join('|'));
      expect(normal(summed), dim).toEqual(normal(fromLogs));
    }
    const [{ n: channels }] = await ds.query("SELECT SUM(count) AS n FROM log_hourly WHERE dim = 'channel'");
    expect(Number(channels)).toBe(Number(covered));
  }, 240_000);

  it('/api/log/stat answers the same quota from the sums as the logs hold', async () => {
    const client = await loginRoot(b);
    const ds = b.gateway.app.get(DataSource);
    for (const [query, where] of [
      ['', ''],
      ['&username=user-3', "AND username = 'user-3'"],
      ['&model_name=model-2', "AND model_name = 'model-2'"],
    ]) {
      const start = now - 20 * HOUR - 17;
      const [{ quota }] = await ds.query(
        `SELECT COALESCE(SUM(quota), 0) AS quota FROM logs WHERE type = 2 AND created_at >= ${start} ${where}`,
      );
      const res = await client.get(`/api/log/stat?start_timestamp=${start}${query}`);
      expect(res.body.data?.quota, res.text).toBe(Number(quota));
    }
  });
});

async function loginRoot(gw: TestGateway) {
  const client = gw.client();
  const res = await client.login(ROOT.username, ROOT.password);
  if (!res.body?.success) throw new Error(res.text);
  return client;
}
