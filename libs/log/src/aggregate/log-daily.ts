import { HOUR, type HourlyBucket, type HourlyDim } from './hourly-buckets.js';

export const DAY = 86_400;
/** The dimensions summed per day: the ones the dashboard's overviews read. */
export const DAILY_DIMS: ReadonlySet<HourlyDim> = new Set(['model', 'username']);
/**
 * A day row of a dashboard answer is dated at the day's 12:00 UTC: every time zone from UTC-12 to UTC+11
 * files that instant under the same calendar date, so a console that buckets rows by its local day shows
 * the day under its own date (at 00:00 UTC, every zone west of UTC would show it one day early).
 */
export const DAY_ROW_OFFSET = 12 * HOUR;

export interface DailyBucket {
  dim: HourlyDim;
  userId: number;
  name: string;
  /** Start of the UTC day, unix seconds. */
  day: number;
  count: number;
  quota: number;
  promptTokens: number;
  completionTokens: number;
}

/** Folds hourly buckets of the daily dimensions into their UTC days. */
export function toDailyBuckets(hourly: Iterable<HourlyBucket>): DailyBucket[] {
  const days = new Map<string, DailyBucket>();
  for (const bucket of hourly) {
    if (!DAILY_DIMS.has(bucket.dim)) continue;
    const day = bucket.hour - (bucket.hour % DAY);
    const key = `${bucket.dim}\u0000${bucket.userId}\u0000${bucket.name}\u0000${day}`;
    const sum = days.get(key);
    if (sum) {
      sum.count += bucket.count;
      sum.quota += bucket.quota;
      sum.promptTokens += bucket.promptTokens;
      sum.completionTokens += bucket.completionTokens;
    } else
      days.set(key, {
        dim: bucket.dim,
        userId: bucket.userId,
        name: bucket.name,
        day,
        count: bucket.count,
        quota: bucket.quota,
        promptTokens: bucket.promptTokens,
        completionTokens: bucket.completionTokens,
      });
  }
  return [...days.values()];
}

/** How an hour range [from, to) is read when it is answered per day. */
export interface DaySplit {
  /** Whole UTC days [firstDay, endDay) read from the daily sums; empty when firstDay === endDay. */
  firstDay: number;
  endDay: number;
  /** The hours [from, to) outside those days, each span inside one UTC day: summed from the hourly sums. */
  hours: Array<[number, number]>;
}

/** Splits hour-aligned [from, to) into the whole UTC days inside it and the hours of the partial days at its edges. */
export function splitIntoDays(from: number, to: number): DaySplit {
  const firstDay = Math.ceil(from / DAY) * DAY;
  const endDay = Math.floor(to / DAY) * DAY;
  if (firstDay >= endDay) {
    // No whole day: the hours of at most two partial days.
    const hours: Array<[number, number]> = [];
    if (from < Math.min(to, firstDay)) hours.push([from, Math.min(to, firstDay)]);
    if (firstDay < to) hours.push([firstDay, to]);
    return { firstDay, endDay: firstDay, hours };
  }
  const hours: Array<[number, number]> = [];
  if (from < firstDay) hours.push([from, firstDay]);
  if (endDay < to) hours.push([endDay, to]);
  return { firstDay, endDay, hours };
}

/** The created_at of a day's row in a per-day answer: the day's 12:00 UTC (see DAY_ROW_OFFSET). */
export function dayRowTime(at: number): number {
  return at - (at % DAY) + DAY_ROW_OFFSET;
}
