import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { LogAggregatorService, LogService, LogType } from '@gw/log';
import { CreateLogDaily1732262460000 } from '../../libs/log/src/migrations/1732262460000-create-log-daily.js';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { sumConsumeLogs, type SummedRow } from '../support/log-sums.js';

const HOUR = 3600;
const DAY = 86_400;
const AGGREGATED = 2000;
const TAIL = 300;

type Row = SummedRow;

/**
 * The dashboard's overviews answer what the raw logs sum to: per hour, and per day (one row per key and UTC
 * day, dated at 12:00 UTC; the partial first and last day summed over their hours inside the range), from the
 * hourly and daily sums plus the logs the aggregator has not reached yet.
 */
describe.each(testDatabases())('dashboard from the daily sums on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let dataSource: DataSource;
  const base = Math.floor(Date.now() / 1000 / DAY) * DAY - 8 * DAY;
  // Hours h with start <= h <= end: [base - 4 h, base + 8 days + 4 h), eight whole days and eight edge hours.
  const start = base - 5 * HOUR + 17;
  const end = base + 8 * DAY + 3 * HOUR + 5;
  const from = base - 4 * HOUR;
  const to = base + 8 * DAY + 4 * HOUR;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    dataSource = gw.gateway.app.get(DataSource);
    const logs = gw.gateway.app.get(LogService);
    const write = async (count: number, seed: number) => {
      for (let i = 0; i < count; i++) {
        const n = (i * 7919 + seed) % 100_003;
        logs.record({
          type: i % 9 === 0 ? LogType.Error : LogType.Consume,
          userId: 2 + (n % 5),
          username: `user-${n % 5}`,
          modelName: `model-${n % 3}`,
          quota: 1 + (n % 97),
          promptTokens: n % 13,
          completionTokens: n % 7,
          // From a day before the range to a day after it.
          createdAt: base - DAY + ((n * 9973) % (10 * DAY)),
        });
      }
      await logs.flush();
    };
    await write(AGGREGATED, 1);
    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    // Logs the sums do not cover yet (unless a background tick gets to them first: the answer is the same).
    await write(TAIL, 2);
  }, 120_000);

  afterAll(async () => gw?.close());

  const fromLogs = (column: 'model_name' | 'username', when: (hour: number) => number) =>
    sumConsumeLogs(dataSource, column, when, from, to);

  const perDay = (hour: number) => hour - (hour % DAY) + 12 * HOUR;

  async function answer(path: string, column: 'model_name' | 'username'): Promise<Row[]> {
    const res = await root.get(path);
    expect(res.body.success, res.text).toBe(true);
    return (res.body.data as Array<Record<string, number | string>>).map((r) => ({
      created_at: Number(r.created_at),
      name: String(r[column]),
      count: Number(r.count),
      quota: Number(r.quota),
      token_used: Number(r.token_used),
    }));
  }

  it.each([
    ['/api/data/', 'model_name'],
    ['/api/data/users', 'username'],
  ] as const)(
    '%s per day equals the logs summed per UTC day',
    async (path, column) => {
      const range = `start_timestamp=${start}&end_timestamp=${end}`;
      const expected = await fromLogs(column, perDay);
      expect(expected.length).toBeGreaterThan(8 * 3);
      expect(await answer(`${path}?${range}&default_time=day`, column)).toEqual(expected);
      expect(await answer(`${path}?${range}&default_time=week`, column)).toEqual(expected);
      expect(await answer(`${path}?${range}`, column)).toEqual(await fromLogs(column, (hour) => hour));
      expect(await answer(`${path}?${range}&default_time=hour`, column)).toEqual(await fromLogs(column, (hour) => hour));
      // The first dashboard read also writes the export's pending hour buckets into quota_data, one by one.
    },
    120_000,
  );

  it('a range without a whole UTC day is answered per partial day', async () => {
    const s = base + 2 * HOUR;
    const e = base + DAY + 2 * HOUR;
    const rows = await answer(`/api/data/?start_timestamp=${s}&end_timestamp=${e}&default_time=day`, 'model_name');
    expect(rows.map((r) => r.created_at)).toEqual([...Array(3).fill(base + 12 * HOUR), ...Array(3).fill(base + DAY + 12 * HOUR)]);
    const [{ quota }] = await dataSource.query(
      `SELECT SUM(quota) AS quota FROM logs WHERE type = 2 AND created_at >= ${s} AND created_at < ${e + HOUR}`,
    );
    expect(rows.reduce((sum, r) => sum + r.quota, 0)).toBe(Number(quota));
  });

  it('the migration sums a database that has hourly sums into the daily ones', async () => {
    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    const runner = dataSource.createQueryRunner();
    try {
      await runner.dropTable('log_daily');
      await new CreateLogDaily1732262460000().up(runner);
    } finally {
      await runner.release();
    }
    const q = (name: string) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);
    for (const [dim, column] of [
      ['model', 'model_name'],
      ['username', 'username'],
    ]) {
      const daily: Record<string, unknown>[] = await dataSource.query(
        `SELECT name, ${q('day')} AS day, count, quota FROM log_daily WHERE dim = '${dim}' ORDER BY ${q('day')}, name`,
      );
      const day = 'created_at - created_at % 86400';
      const logs: Record<string, unknown>[] = await dataSource.query(
        `SELECT ${column} AS name, ${day} AS day, COUNT(*) AS count, SUM(quota) AS quota FROM logs WHERE type = 2
         GROUP BY ${column}, ${day} ORDER BY ${day}, ${column}`,
      );
      const normal = (rows: Record<string, unknown>[]) => rows.map((r) => [r.name, r.day, r.count, r.quota].map(String).join('|'));
      expect(normal(daily), dim).toEqual(normal(logs));
    }
  });
});
