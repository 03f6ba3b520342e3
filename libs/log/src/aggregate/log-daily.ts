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

/** How an hour range [from, to) is read when whole days may be read per day. */
export interface DaySplit {
  /** Whole UTC days [firstDay, endDay) read from the daily sums; empty when firstDay === endDay. */
  firstDay: number;
  endDay: number;
  /** The hours [from, to) outside those days are read per hour. */
  hours: Array<[number, number]>;
}

/** Splits hour-aligned [from, to) into the whole UTC days inside it and the hours at its edges. */
export function splitIntoDays(from: number, to: number): DaySplit {
  const firstDay = Math.ceil(from / DAY) * DAY;
  const endDay = Math.floor(to / DAY) * DAY;
  if (firstDay >= endDay) return { firstDay, endDay: firstDay, hours: from < to ? [[from, to]] : [] };
  const hours: Array<[number, number]> = [];
  if (from < firstDay) hours.push([from, firstDay]);
  if (endDay < to) hours.push([endDay, to]);
  return { firstDay, endDay, hours };
}

/** The created_at of an hour's contribution: the hour itself, or its day's row when the day is read whole. */
export function rowTime(hour: number, split: DaySplit): number {
  if (hour >= split.firstDay && hour < split.endDay) return hour - (hour % DAY) + DAY_ROW_OFFSET;
  return hour;
}
