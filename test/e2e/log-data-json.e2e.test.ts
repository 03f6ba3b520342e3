import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource, type QueryRunner } from 'typeorm';
import { LogAggregatorService, LogService, LogType } from '@gw/log';
import { HourlyDashboardService, MAX_HOURLY_ROWS } from '../../libs/log/src/aggregate/hourly-dashboard.service.js';
import { HourTextsWarmer } from '../../libs/log/src/aggregate/hour-texts-warmer.service.js';
import { SeriesTextRepository } from '../../libs/log/src/aggregate/series-text.repository.js';
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

  /** The stored texts of a dimension's completed hours (or days, under its day key): hour -> [gen, body or null]. */
  async function storedHours(dim: 'model' | 'username' | 'model-day' | 'username-day'): Promise<Map<number, [number, string | null]>> {
    const rows: Array<{ hour: unknown; gen: unknown; body: unknown }> = await dataSource.query(
      `SELECT hour, gen, body FROM log_series_text WHERE dim = ${kind === 'postgres' ? '$1' : '?'}`,
      [dim],
    );
    return new Map(rows.map((r) => [Number(r.hour), [Number(r.gen), r.body == null ? null : String(r.body)]]));
  }

  it.each([
    ['/api/data/', 'model_name', 'model'],
    ['/api/data/users', 'username', 'username'],
  ] as const)('%s: completed hours are stored once and invalidated when late logs are summed into them', async (path, column, dim) => {
    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    const expected = async () => expectedText(await fromLogs(column, (hour) => hour), column);
    const first = await root.get(`${path}?${range}`);
    expect(first.text).toBe(await expected());
    const stored = await storedHours(dim);
    const currentHour = Math.floor(Date.now() / 1000 / HOUR) * HOUR;
    // Every completed hour of the range has its text (empty hours too); the current hour is never stored.
    for (let h = Math.ceil((base - 5 * HOUR) / HOUR) * HOUR; h < currentHour; h += HOUR) expect(stored.get(h)?.[1]).not.toBeNull();
    expect(stored.get(currentHour)?.[1] ?? null).toBeNull();
    // Read back from the stored texts: the same bytes.
    expect((await root.get(`${path}?${range}`)).text).toBe(first.text);

    // A late log (a task billed days after it ran) lands in a stored hour: while the sums do not cover it,
    // the hour is built from rows with the log added; once summed, the hour's text is dropped and rendered again.
    const late = base + 7 * HOUR;
    expect(stored.get(late)?.[1]).not.toBeNull();
    record(5, late + 123);
    await logs.flush();
    const withTail = await root.get(`${path}?${range}`);
    expect(withTail.text).not.toBe(first.text);
    expect(withTail.text).toBe(await expected());
    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    const invalidated = await storedHours(dim);
    expect(invalidated.get(late)).toEqual([(stored.get(late)?.[0] ?? 0) + 1, null]);
    // Only the hour the log went into.
    expect(invalidated.get(late - HOUR)).toEqual(stored.get(late - HOUR));
    expect((await root.get(`${path}?${range}`)).text).toBe(await expected());
    expect((await storedHours(dim)).get(late)?.[1]).not.toBeNull();
  });

  it.each([
    ['/api/data/', 'model_name', 'model'],
    ['/api/data/users', 'username', 'username'],
  ] as const)('%s per day: whole days are stored once and invalidated when late logs are summed into them', async (path, column, dim) => {
    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    const expected = async () => expectedText(await fromLogs(column, perDay), column);
    const url = `${path}?${range}&default_time=day`;
    const first = await root.get(url);
    expect(first.text).toBe(await expected());
    // The range starts at 19:00 the day before `base` and ends now, which selects the hour bucket now falls in:
    // the three days from `base` are whole, and in a day's last hour (its last bucket selected) so is today.
    const wholeEnd = Math.floor((Math.floor(now / HOUR) * HOUR + HOUR) / DAY) * DAY;
    const stored = await storedHours(`${dim}-day`);
    for (let day = base; day < wholeEnd; day += DAY) expect(stored.get(day)?.[1]).toMatch(/^\{"id":0/);
    // The partial days at the edges come from the hourly sums: their keys exist (the aggregator raised their
    // generations) but hold no text.
    const edges = [...stored].filter(([day]) => day < base || day >= wholeEnd);
    expect(edges.map(([, [, body]]) => body)).toEqual(edges.map(() => null));
    // Read back from the stored texts: the same bytes.
    expect((await root.get(url)).text).toBe(first.text);

    // A late log lands in a stored day: once summed, that day's text is dropped and rendered again.
    record(7, base + DAY + 5 * HOUR);
    await logs.flush();
    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    const invalidated = await storedHours(`${dim}-day`);
    expect(invalidated.get(base + DAY)).toEqual([(stored.get(base + DAY)?.[0] ?? 0) + 1, null]);
    // Only the day the log went into.
    expect(invalidated.get(base)).toEqual(stored.get(base));
    const again = await root.get(url);
    expect(again.text).not.toBe(first.text);
    expect(again.text).toBe(await expected());
    expect((await storedHours(`${dim}-day`)).get(base + DAY)?.[1]).not.toBeNull();
  });

  it('a text rendered before the sums changed is not stored', async () => {
    const texts = gw.gateway.app.get(SeriesTextRepository);
    const hour = base + 9 * HOUR;
    await root.get(`/api/data/?${range}`);
    const before = (await texts.read('model', hour, hour + HOUR)).get(hour);
    expect(before?.body).toBeDefined();
    // Summed into after `before` was read: a text rendered under the old generation must not land.
    record(1, hour + 5);
    await logs.flush();
    await gw.gateway.app.get(LogAggregatorService).aggregateUpTo();
    await texts.store('model', [{ hour, gen: before?.gen, rows: 1, text: 'stale' }]);
    const after = (await texts.read('model', hour, hour + HOUR)).get(hour);
    expect(after?.gen).toBe((before?.gen ?? 0) + 1);
    expect(after?.body).toBeUndefined();
    // Under the current generation it is stored (the path a dashboard read takes).
    await texts.store('model', [{ hour, gen: after?.gen, rows: 1, text: 'current' }]);
    expect((await texts.read('model', hour, hour + HOUR)).get(hour)?.body?.toString('utf8')).toBe('current');
    // Restore the real text for the other tests: invalidate it as the aggregator would.
    await dataSource.transaction((manager) => texts.invalidate(manager.queryRunner as QueryRunner, [{ dim: 'model', hour }]));
    expect((await root.get(`/api/data/?${range}`)).text).toBe(expectedText(await fromLogs('model_name', (h) => h), 'model_name'));
  });

  it('the background pass renders the missing completed hours, and the answer read from them is the same', async () => {
    const texts = gw.gateway.app.get(SeriesTextRepository);
    const hours = [base + 2 * HOUR, base + 3 * HOUR, base + 30 * HOUR];
    // Dropped as a summing of late logs drops them.
    await dataSource.transaction((manager) =>
      texts.invalidate(
        manager.queryRunner as QueryRunner,
        hours.flatMap((hour) => [
          { dim: 'model' as const, hour },
          { dim: 'username' as const, hour },
        ]),
      ),
    );
    for (const dim of ['model', 'username'] as const) for (const h of hours) expect((await storedHours(dim)).get(h)?.[1]).toBeNull();
    // One clock for both passes: an hour ending in between would be new work for the second.
    const at = Math.floor(Date.now() / 1000);
    expect(await gw.gateway.app.get(HourTextsWarmer).tick(at)).toBeGreaterThanOrEqual(2 * hours.length);
    for (const dim of ['model', 'username'] as const) for (const h of hours) expect((await storedHours(dim)).get(h)?.[1]).not.toBeNull();
    expect((await root.get(`/api/data/?${range}`)).text).toBe(expectedText(await fromLogs('model_name', (h) => h), 'model_name'));
    expect((await root.get(`/api/data/users?${range}`)).text).toBe(expectedText(await fromLogs('username', (h) => h), 'username'));
    // Nothing is missing any more: a second pass renders nothing.
    expect(await gw.gateway.app.get(HourTextsWarmer).tick(at)).toBe(0);
    // A per-user text older than the kept week and a day is dropped by the pass (its row stays, its generation raised).
    const old = Math.floor(at / HOUR) * HOUR - 9 * DAY;
    await texts.store('username', [{ hour: old, rows: 0, text: '' }]);
    expect((await storedHours('username')).get(old)).toEqual([0, '']);
    await gw.gateway.app.get(HourTextsWarmer).tick(at);
    expect((await storedHours('username')).get(old)).toEqual([1, null]);
  });

  it('an empty range is an empty list', async () => {
    const res = await root.get(`/api/data/?start_timestamp=${base - 40 * DAY}&end_timestamp=${base - 39 * DAY}`);
    expect(res.text).toBe('{"success":true,"message":"","data":[]}');
  });
});
