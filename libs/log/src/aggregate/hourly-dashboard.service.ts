import { Injectable } from '@nestjs/common';
import { QuotaDataRepository, type QuotaDataView } from '../quota-data.repository.js';
import { HourlyReader } from './hourly-reader.service.js';
import { HOUR, type HourlyBucket, sumIntoBuckets } from './hourly-buckets.js';
import { LogDailyRepository } from './log-daily.repository.js';
import { dayRowTime, splitIntoDays } from './log-daily.js';
import { LogHourlyRepository, type HourlyPoint } from './log-hourly.repository.js';

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
    const points = await this.reader.withTail(async (tail) => {
      const recent = tail.filter((row) => row.createdAt >= from && row.createdAt < to);
      const tailBuckets = sumIntoBuckets(recent).filter((b) => b.dim === dim);
      if (!days) return merge(await this.hourly.series(dim, from, to), tailBuckets);
      const split = splitIntoDays(from, to);
      const summed: HourlyPoint[] = [];
      for (const [a, b] of split.hours) for (const point of await this.daily.hoursSummed(dim, a, b)) summed.push(point);
      if (split.firstDay < split.endDay) for (const point of await this.daily.series(dim, split.firstDay, split.endDay)) summed.push(point);
      for (const point of summed) point.hour = dayRowTime(point.hour);
      for (const bucket of tailBuckets) bucket.hour = dayRowTime(bucket.hour);
      return merge(summed, tailBuckets);
    });
    if (!points) return dim === 'model' ? this.quotaData.overview(start, end) : this.quotaData.byUser(start, end);
    return points.map((p) => ({
      id: 0,
      user_id: 0,
      username: dim === 'username' ? p.name : '',
      model_name: dim === 'model' ? p.name : '',
      created_at: p.hour,
      token_used: p.tokens,
      count: p.count,
      quota: p.quota,
    }));
  }
}

const byTimeThenName = (a: HourlyPoint, b: HourlyPoint) => a.hour - b.hour || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Adds the tail's buckets into the summed points; ordered by time, then name (as new-api orders them). The
 * summed points are keyed uniquely already, so only the tail's few keys go through a map.
 */
function merge(summed: HourlyPoint[], tail: HourlyBucket[]): HourlyPoint[] {
  if (tail.length > 0) {
    const byKey = new Map<string, HourlyPoint>();
    for (const point of summed) byKey.set(`${point.hour}\u0000${point.name}`, point);
    for (const bucket of tail) {
      const key = `${bucket.hour}\u0000${bucket.name}`;
      const tokens = bucket.promptTokens + bucket.completionTokens;
      const point = byKey.get(key);
      if (point) {
        point.count += bucket.count;
        point.quota += bucket.quota;
        point.tokens += tokens;
      } else {
        const added = { userId: 0, name: bucket.name, hour: bucket.hour, count: bucket.count, quota: bucket.quota, tokens };
        byKey.set(key, added);
        summed.push(added);
      }
    }
  }
  return summed.sort(byTimeThenName);
}
