import { Injectable } from '@nestjs/common';
import type { LogFilter } from '../log-filter.js';
import { LogRepository, type LogStat } from '../log.repository.js';
import { bucketKeys, type ConsumeRow, HOUR, type HourlyDim } from './hourly-buckets.js';
import { HourlyReader } from './hourly-reader.service.js';
import { LogHourlyRepository } from './log-hourly.repository.js';

/**
 * new-api's `/api/log/stat` without scanning the logs: the whole hours of the range come from the hourly
 * sums, the logs they do not cover yet (ids above the cursor) and the partial hours at both ends of the range
 * from `logs` through its indexes. Filters the sums are not keyed by (a pattern, a request id, two filters
 * at once) fall back to the indexed scan of `logs`.
 */
@Injectable()
export class LogStatService {
  constructor(
    private readonly logs: LogRepository,
    private readonly hourly: LogHourlyRepository,
    private readonly reader: HourlyReader,
  ) {}

  async stat(filter: LogFilter, now: number): Promise<LogStat> {
    const [quota, recent] = await Promise.all([this.quota(filter, now), this.logs.lastMinute(filter, now)]);
    return { quota, ...recent };
  }

  private async quota(filter: LogFilter, now: number): Promise<number> {
    const key = hourlyKey(filter);
    const start = filter.start ?? 0;
    const end = filter.end ?? now;
    // Whole hours inside [start, end]: [firstHour, endHour).
    const firstHour = Math.ceil(start / HOUR) * HOUR;
    const endHour = Math.floor((end + 1) / HOUR) * HOUR;
    if (!key || firstHour >= endHour) return this.logs.consumeQuota(filter);
    const edges =
      (firstHour > start ? await this.logs.consumeQuota({ ...filter, start, end: firstHour - 1 }) : 0) +
      (endHour <= end ? await this.logs.consumeQuota({ ...filter, start: endHour, end }) : 0);
    return edges + (await this.wholeHours(filter, key, firstHour, endHour));
  }

  private async wholeHours(filter: LogFilter, key: HourlyKey, firstHour: number, endHour: number): Promise<number> {
    const [dim, userId, name] = key;
    const sum = await this.reader.withTail(async (tail) => {
      let quota = await this.hourly.sumQuota(dim, userId, name, firstHour, endHour);
      for (const row of tail) if (row.createdAt >= firstHour && row.createdAt < endHour && matches(row, key)) quota += row.quota;
      return quota;
    });
    // Aggregation is far behind (a backfill is running): the indexed scan of the logs is exact.
    return sum ?? this.logs.consumeQuota({ ...filter, start: firstHour, end: endHour - 1 });
  }
}

type HourlyKey = [HourlyDim, number, string];

/** The hourly sums' key for a filter, or undefined when no sum is keyed by exactly that filter. */
export function hourlyKey(filter: LogFilter): HourlyKey | undefined {
  if (filter.requestId || filter.tokenId || filter.afterId !== undefined) return undefined;
  if (filter.modelName?.includes('%')) return undefined;
  const keys: HourlyKey[] = [];
  if (filter.userId !== undefined) keys.push(['user', filter.userId, '']);
  if (filter.username) keys.push(['username', 0, filter.username]);
  if (filter.tokenName) keys.push(['token', 0, filter.tokenName]);
  if (filter.modelName) keys.push(['model', 0, filter.modelName]);
  if (filter.channelId) keys.push(['channel', 0, String(filter.channelId)]);
  if (filter.group) keys.push(['group', 0, filter.group]);
  if (keys.length === 0) return ['all', 0, ''];
  return keys.length === 1 ? keys[0] : undefined;
}

function matches(row: ConsumeRow, [dim, userId, name]: HourlyKey): boolean {
  return bucketKeys(row).some(([d, u, n]) => d === dim && u === userId && n === name);
}
