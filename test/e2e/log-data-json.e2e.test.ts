import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { LogAggregatorService, LogService, LogType } from '@gw/log';
import { HourlyDashboardService, MAX_HOURLY_ROWS } from '../../libs/log/src/aggregate/hourly-dashboard.service.js';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { sumConsumeLogs, type SummedRow } from '../support/log-sums.js';

const HOUR = 3600;
const DAY = 86_400;
/** new-api's QuotaData fields, in the order its JSON has them. */
const KEYS = ['id', 'user_id', 'username', 'model_name', 'created_at', 'token_used', 'count', 'quota'];
/** Names JSON must escape, non-ASCII ones, and capitals that sort before lower case by code point. */
const NAMES = ['Zeta', 'alpha', 'quo"te', 'back\\slash', 'new\nline', 'tab\tbell\u0007', '中文模型', 'emoji-😀', 'slash/name'];

type Row = SummedRow;

/**
 * The dashboard's overviews are rendered as JSON text by the database for the hours the sums cover, and as
 * rows in JS for the hours the tail reaches: both must give byte for byte the answer JSON.stringify gives for
 * new-api's rows (key order, compact, the same escapes), ordered by time and then name by code point.
 */
describe.each(testDatabases())('dashboard JSON rendered by the database on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let dataSource: DataSource;
  let logs: LogService;
  const now = Math.floor(Date.now() / 1000);
  const base = Math.floor(now / DAY) * DAY - 3 * DAY;
  const range = `start_timestamp=${base - 5 * HOUR}&end_timestamp=${now}`;

  const record = (i: number, createdAt: number) =>
    logs.record({
      type: i % 11 === 0 ? LogType.Error : LogType.Consume,
      userId: 2 + (i % 4),
      username: NAMES[(i + 3) % NAMES.length],
      modelName: NAMES[i % NAMES.length],
      quota: 1 + (i % 89),
      promptTokens: i % 17,
      completionTokens: i % 5,
      createdAt,
    });

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    dataSource = gw.gateway.app.get(DataSource);
    logs = gw.gateway.app.get(LogService);
    // Four days before now, a few logs an hour, every name in many hours.
    for (let i = 0; i < 600; i++) record(i, base - 6 * HOUR + ((i * 7919) % (now - base)));
    await logs.flush();
    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
  }, 120_000);

  afterAll(async () => gw?.close());

  const fromLogs = (column: 'model_name' | 'username', when: (hour: number) => number) =>
    sumConsumeLogs(dataSource, column, when, base - 5 * HOUR);

  /** new-api's rows for the sums, and the exact text its JSON encoder (and JSON.stringify) writes for them. */
  function expectedText(rows: Row[], column: 'model_name' | 'username'): string {
    const data = rows.map((r) => ({
      id: 0,
      user_id: 0,
      username: column === 'username' ? r.name : '',
      model_name: column === 'model_name' ? r.name : '',
      created_at: r.created_at,
      token_used: r.token_used,
      count: r.count,
      quota: r.quota,
    }));
    return JSON.stringify({ success: true, message: '', data });
  }

  const perDay = (hour: number) => hour - (hour % DAY) + 12 * HOUR;

  it.each([
    ['/api/data/', 'model_name'],
    ['/api/data/users', 'username'],
  ] as const)('%s: the same bytes as new-api, per hour and per day, with and without a tail', async (path, column) => {
    for (const withTail of [false, true]) {
      if (withTail) {
        // Logs the sums do not cover yet, in the last hours: those hours come from rows, the others from SQL.
        for (let i = 0; i < 40; i++) record(i * 13, now - 2 * HOUR + i * 97);
        await logs.flush();
      }
      const hourly = await root.get(`${path}?${range}`);
      expect(hourly.headers.get('content-type')).toMatch(/^application\/json/);
      expect(hourly.text).toBe(expectedText(await fromLogs(column, (hour) => hour), column));
      expect(Object.keys(hourly.body.data[0])).toEqual(KEYS);
      const daily = await root.get(`${path}?${range}&default_time=day`);
      expect(daily.text).toBe(expectedText(await fromLogs(column, perDay), column));
    }
    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    expect((await root.get(`${path}?${range}`)).text).toBe(expectedText(await fromLogs(column, (hour) => hour), column));
  });

  it('an hourly answer of more rows than the limit is given per day', async () => {
    const dashboard = gw.gateway.app.get(HourlyDashboardService);
    const hourly = (await root.get(`/api/data/users?${range}`)).text;
    const rows = JSON.parse(hourly).data.length;
    const perDayText = (await root.get(`/api/data/users?${range}&default_time=day`)).text;
    expect(perDayText).not.toBe(hourly);
    try {
      dashboard.maxHourlyRows = rows - 1;
      expect((await root.get(`/api/data/users?${range}`)).text).toBe(perDayText);
      dashboard.maxHourlyRows = rows;
      expect((await root.get(`/api/data/users?${range}`)).text).toBe(hourly);
    } finally {
      dashboard.maxHourlyRows = MAX_HOURLY_ROWS;
    }
  });

  it('an empty range is an empty list', async () => {
    const res = await root.get(`/api/data/?start_timestamp=${base - 40 * DAY}&end_timestamp=${base - 39 * DAY}`);
    expect(res.text).toBe('{"success":true,"message":"","data":[]}');
  });
});
