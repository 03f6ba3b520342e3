import { Injectable } from '@nestjs/common';
import { type JsonText, jsonArray } from '@gw/core';
import { QuotaDataRepository, type QuotaDataView } from '../quota-data.repository.js';
import { DayTextsService } from './day-texts.service.js';
import { HourlyReader } from './hourly-reader.service.js';
import { HOUR, type HourlyBucket, sumIntoBuckets } from './hourly-buckets.js';
import { HourTextsService } from './hour-texts.service.js';
import { LogDailyRepository } from './log-daily.repository.js';
import { dayRowTime, splitIntoDays } from './log-daily.js';
import { jsonRuns } from './series-json.js';
import { addTail, byTimeThenName, toViews } from './series-rows.js';
import type { TextDim as Dim } from './series-text.repository.js';

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
    private readonly daily: LogDailyRepository,
    private readonly reader: HourlyReader,
    private readonly hours: HourTextsService,
    private readonly days: DayTextsService,
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
   * Hour buckets h with start <= h <= end, as the quota_data queries select them. Per hour, each hour's rows
   * are a text stored once the hour is complete (HourTextsService); per day, each whole day's rows are a text
   * stored once rendered from the daily sums (DayTextsService) and the rest read as rows, the tail added in.
   */
  private async series(dim: Dim, start: number, end: number, days: boolean): Promise<QuotaDataView[] | JsonText> {
    const from = Math.ceil(start / HOUR) * HOUR;
    const to = Math.floor(end / HOUR) * HOUR + HOUR;
    // Decided before the read: whether it is per hour must not change between the attempts of withTail.
    const perDay = days || (await this.hours.exceeds(dim, from, to, this.maxHourlyRows));
    const rows = await this.reader.withTail(async (tail) => {
      const recent = tail.filter((row) => row.createdAt >= from && row.createdAt < to);
      const tailBuckets = sumIntoBuckets(recent).filter((b) => b.dim === dim);
      if (!perDay) return this.perHour(dim, from, to, tailBuckets);
      const tailFrom = tailBuckets.reduce((min, b) => Math.min(min, b.hour), to);
      return this.perDay(dim, from, to, tailBuckets, tailFrom);
    });
    if (!rows) return dim === 'model' ? this.quotaData.overview(start, end) : this.quotaData.byUser(start, end);
    return rows;
  }

  private async perHour(dim: Dim, from: number, to: number, tail: HourlyBucket[]): Promise<JsonText> {
    return jsonArray(await this.hours.fragments(dim, from, to, tail));
  }

  /**
   * Every row a key's UTC day: the partial first and last day summed from the hourly sums, the whole days
   * between from the daily ones (their stored texts unless the tail falls inside them).
   */
  private async perDay(dim: Dim, from: number, to: number, tail: HourlyBucket[], tailFrom: number): Promise<QuotaDataView[] | JsonText> {
    const split = splitIntoDays(from, to);
    for (const bucket of tail) bucket.hour = dayRowTime(bucket.hour);
    const edge = async (a: number, b: number) => toViews(dim, await this.daily.hoursSummed(dim, a, b), dayRowTime);
    const whole = split.firstDay < split.endDay && tailFrom >= split.endDay;
    const middle = whole ? await this.days.fragments(dim, split.firstDay, split.endDay) : undefined;
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
    return jsonArray(jsonRuns(first, middle, last));
  }
}
