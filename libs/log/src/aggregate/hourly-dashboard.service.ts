import { Injectable } from '@nestjs/common';
import { type JsonText, jsonText } from '@gw/core';
import { QuotaDataRepository, type QuotaDataView } from '../quota-data.repository.js';
import { HourlyReader } from './hourly-reader.service.js';
import { HOUR, type HourlyBucket, type HourlyDim, sumIntoBuckets } from './hourly-buckets.js';
import { LogDailyRepository } from './log-daily.repository.js';
import { dayRowTime, splitIntoDays } from './log-daily.js';
import { LogHourlyRepository, type SummedRow } from './log-hourly.repository.js';
import { joinJson } from './series-json.js';

/** The two dimensions the dashboard charts. */
type Dim = Extract<HourlyDim, 'model' | 'username'>;
/**
 * Above this many rows an hourly answer is given per day instead. 250 k rows are ~30 MB of JSON: a week per
 * user hour at 2,000 active users; 90 days of them would be ~3 M rows (~380 MB), more than a browser can chart
 * or the console can group, and seconds of the server's time whatever renders it.
 */
export const MAX_HOURLY_ROWS = 250_000;

/**
 * The admin dashboard's overview (per model and hour) and per-user view (per username and hour), in
 * new-api's row shape, read from the hourly sums plus the logs they do not cover yet: a few thousand rows
 * for a week whatever the log volume. Asked per day (`days`), every row is a key's UTC day: the whole days
 * of the range from the daily sums, its partial first and last day summed from the hourly ones, so 90 days
 * are 91 rows per model instead of 2,160.
 */
@Injectable()
export class HourlyDashboardService {
  /** See MAX_HOURLY_ROWS (a test lowers it). */
  maxHourlyRows = MAX_HOURLY_ROWS;

  constructor(
    private readonly hourly: LogHourlyRepository,
    private readonly daily: LogDailyRepository,
    private readonly reader: HourlyReader,
    /** While a backfill is far behind, the export's own table answers. */
    private readonly quotaData: QuotaDataRepository,
  ) {}

  byModel(start: number, end: number, days = false): Promise<QuotaDataView[] | JsonText> {
    return this.series('model', start, end, days);
  }

  byUsername(start: number, end: number, days = false): Promise<QuotaDataView[] | JsonText> {
    return this.series('username', start, end, days);
  }

  /**
   * Hour buckets h with start <= h <= end, as the quota_data queries select them. The time before the
   * first bucket of the tail (all of it, usually: the tail is the last seconds of logs) is rendered as JSON
   * by the database (readSeriesJson); the rest is read as rows and the tail added into them.
   */
  private async series(dim: Dim, start: number, end: number, days: boolean): Promise<QuotaDataView[] | JsonText> {
    const from = Math.ceil(start / HOUR) * HOUR;
    const to = Math.floor(end / HOUR) * HOUR + HOUR;
    // Decided before the read: whether it is per hour must not change between the attempts of withTail.
    const perDay = days || (await this.hourly.seriesExceeds(dim, from, to, this.maxHourlyRows));
    const rows = await this.reader.withTail(async (tail) => {
      const recent = tail.filter((row) => row.createdAt >= from && row.createdAt < to);
      const tailBuckets = sumIntoBuckets(recent).filter((b) => b.dim === dim);
      const tailFrom = tailBuckets.reduce((min, b) => Math.min(min, b.hour), to);
      return perDay ? this.perDay(dim, from, to, tailBuckets, tailFrom) : this.perHour(dim, from, to, tailBuckets, tailFrom);
    });
    if (!rows) return dim === 'model' ? this.quotaData.overview(start, end) : this.quotaData.byUser(start, end);
    return rows;
  }

  private async perHour(dim: Dim, from: number, to: number, tail: HourlyBucket[], tailFrom: number): Promise<QuotaDataView[] | JsonText> {
    const head = await this.hourly.seriesJson(dim, from, tailFrom);
    if (!head) return addTail(toViews(dim, await this.hourly.series(dim, from, to)), dim, tail);
    const rest = tailFrom < to ? addTail(toViews(dim, await this.hourly.series(dim, tailFrom, to)), dim, tail) : [];
    return jsonText(joinJson(head, rest));
  }

  /**
   * Every row a key's UTC day: the partial first and last day summed from the hourly sums, the whole days
   * between from the daily ones (rendered by the database unless the tail falls inside them).
   */
  private async perDay(dim: Dim, from: number, to: number, tail: HourlyBucket[], tailFrom: number): Promise<QuotaDataView[] | JsonText> {
    const split = splitIntoDays(from, to);
    for (const bucket of tail) bucket.hour = dayRowTime(bucket.hour);
    const edge = async (a: number, b: number) => toViews(dim, await this.daily.hoursSummed(dim, a, b), dayRowTime);
    const whole = split.firstDay < split.endDay && tailFrom >= split.endDay;
    const middle = whole ? await this.daily.seriesJson(dim, split.firstDay, split.endDay) : undefined;
    if (!middle) {
      const summed: QuotaDataView[] = [];
      for (const [a, b] of split.hours) summed.push(...(await edge(a, b)));
      if (split.firstDay < split.endDay)
        summed.push(...toViews(dim, await this.daily.series(dim, split.firstDay, split.endDay), dayRowTime));
      return addTail(summed, dim, tail);
    }
    const before: QuotaDataView[] = [];
    const after: QuotaDataView[] = [];
    for (const [a, b] of split.hours) (a < split.firstDay ? before : after).push(...(await edge(a, b)));
    // The tail lies after the whole days (tailFrom >= endDay): it is added into the last partial day.
    const first = before.sort(byTimeThenName);
    const last = addTail(after, dim, tail);
    return jsonText(joinJson([...(first.length ? [JSON.stringify(first).slice(1, -1)] : []), ...middle], last));
  }
}

/**
 * The summed rows as new-api's answer rows, in one pass and one object each: a 90-day answer has up to a few
 * hundred thousand of them, so there is no intermediate shape. `when` dates a row (per day: the day's row time).
 */
function toViews(dim: Dim, rows: SummedRow[], when: (at: number) => number = (at) => at): QuotaDataView[] {
  const views: QuotaDataView[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as SummedRow;
    const name = String(row.name);
    views[i] = {
      id: 0,
      user_id: 0,
      username: dim === 'username' ? name : '',
      model_name: dim === 'model' ? name : '',
      created_at: when(Number(row.at)),
      token_used: Number(row.tokens),
      count: Number(row.count),
      quota: Number(row.quota),
    };
  }
  return views;
}

const nameOf = (view: QuotaDataView) => view.username || view.model_name;
const byTimeThenName = (a: QuotaDataView, b: QuotaDataView) => {
  const x = nameOf(a);
  const y = nameOf(b);
  return a.created_at - b.created_at || (x < y ? -1 : x > y ? 1 : 0);
};

/**
 * Adds the tail's buckets into the summed rows; ordered by time, then name (as new-api orders them). The
 * summed rows are keyed uniquely already, so only the tail's few keys go through a map; the rows come in the
 * index's order, so the sort is a near-linear pass over runs that are already sorted.
 */
function addTail(views: QuotaDataView[], dim: Dim, tail: HourlyBucket[]): QuotaDataView[] {
  if (tail.length > 0) {
    const byKey = new Map<string, QuotaDataView>();
    for (const view of views) byKey.set(`${view.created_at}\u0000${nameOf(view)}`, view);
    for (const bucket of tail) {
      const key = `${bucket.hour}\u0000${bucket.name}`;
      const tokens = bucket.promptTokens + bucket.completionTokens;
      const view = byKey.get(key);
      if (view) {
        view.count += bucket.count;
        view.quota += bucket.quota;
        view.token_used += tokens;
      } else {
        const [added] = toViews(dim, [{ name: bucket.name, at: bucket.hour, count: bucket.count, quota: bucket.quota, tokens }]);
        byKey.set(key, added as QuotaDataView);
        views.push(added as QuotaDataView);
      }
    }
  }
  return views.sort(byTimeThenName);
}
