import { Injectable } from '@nestjs/common';
import type { ConsumeRow } from './hourly-buckets.js';
import { LogHourlyRepository } from './log-hourly.repository.js';

/**
 * Above this many log ids past the cursor (a backfill still running, aggregation stopped) a read does not
 * load the tail; the caller falls back to its indexed query of `logs`.
 */
const MAX_TAIL_IDS = 50_000;
const CONSISTENT_READ_TRIES = 3;

/**
 * Reads the hourly sums together with the consume logs they do not cover yet (the tail, read by primary-key
 * range), consistently: when the aggregator moves its cursor in the middle of a read (one step per tick), the
 * read is done again, so no log is counted twice or missed.
 */
@Injectable()
export class HourlyReader {
  constructor(private readonly repo: LogHourlyRepository) {}

  /** `read(tail)` runs against the sums; undefined when the tail is too long to read. */
  async withTail<T>(read: (tail: ConsumeRow[]) => Promise<T>): Promise<T | undefined> {
    for (let attempt = 1; ; attempt++) {
      const covered = await this.repo.coveredUpTo();
      const highest = await this.repo.maxLogId();
      if (highest - covered > MAX_TAIL_IDS) return undefined;
      const result = await read(highest > covered ? await this.repo.consumeRows(covered, highest) : []);
      if ((await this.repo.coveredUpTo()) === covered || attempt === CONSISTENT_READ_TRIES) return result;
    }
  }
}
