import { Injectable } from '@nestjs/common';
import { QuotaDataRepository, type QuotaDataView } from '../quota-data.repository.js';
import { HourlyReader } from './hourly-reader.service.js';
import { HOUR, type HourlyBucket, sumIntoBuckets } from './hourly-buckets.js';
import { LogDailyRepository } from './log-daily.repository.js';
import { dayRowTime, splitIntoDays } from './log-daily.js';
import { LogHourlyRepository, type SummedRow } from './log-hourly.repository.js';

/**
 * The admin dashboard's overview (per model and hour) and per-user view (per username and hour), in
 * new-api's row shape, read from the hourly sums plus the logs they do not cover yet: a few thousand rows
 * for a week whatever the log volume. Asked per day (`days`), every row is a key's UTC day: the whole days
 * of the range from the daily sums, its partial first and last day summed from the hourly ones, so 90 days
 * are 91 rows per model instead of 2,160.
 */
@Injectable()
export class HourlyDashboardService {
  constructor(
    private readonly hourly: LogHourlyRepository,
    private readonly daily: LogDailyRepository,
    private readonly reader: HourlyReader,
    /** While a backfill is far behind, the export's own table answers. */
    private readonly quotaData: QuotaDataRepository,
  ) {}

  byModel(start: number, end: number, days = false): Promise<QuotaDataView[]> {
    return this.series('model', start, end, days);
  }

  byUsername(start: number, end: number, days = false): Promise<QuotaDataView[]> {
    return this.series('username', start, end, days);
  }

  /** Hour buckets h with start <= h <= end, as the quota_data queries select them. */
  private async series(dim: 'model' | 'username', start: number, end: number, days: boolean): Promise<QuotaDataView[]> {
    const from = Math.ceil(start / HOUR) * HOUR;
    const to = Math.floor(end / HOUR) * HOUR + HOUR;
    const rows = await this.reader.withTail(async (tail) => {
      const recent = tail.filter((row) => row.createdAt >= from && row.createdAt < to);
      const tailBuckets = sumIntoBuckets(recent).filter((b) => b.dim === dim);
      if (!days) return addTail(toViews(dim, await this.hourly.series(dim, from, to)), dim, tailBuckets);
      const split = splitIntoDays(from, to);
      const summed: SummedRow[] = [];
      for (const [a, b] of split.hours) for (const row of await this.daily.hoursSummed(dim, a, b)) summed.push(row);
      if (split.firstDay < split.endDay) for (const row of await this.daily.series(dim, split.firstDay, split.endDay)) summed.push(row);
      for (const bucket of tailBuckets) bucket.hour = dayRowTime(bucket.hour);
      return addTail(toViews(dim, summed, dayRowTime), dim, tailBuckets);
    });
    if (!rows) return dim === 'model' ? this.quotaData.overview(start, end) : this.quotaData.byUser(start, end);
    return rows;
  }
}

/**
 * The summed rows as new-api's answer rows, in one pass and one object each: a 90-day answer has up to a few
 * hundred thousand of them, so there is no intermediate shape. `when` dates a row (per day: the day's row time).
 */
function toViews(dim: 'model' | 'username', rows: SummedRow[], when: (at: number) => number = (at) => at): QuotaDataView[] {
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
function addTail(views: QuotaDataView[], dim: 'model' | 'username', tail: HourlyBucket[]): QuotaDataView[] {
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
