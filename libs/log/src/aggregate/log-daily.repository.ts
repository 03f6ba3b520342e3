import { Inject, Injectable } from '@nestjs/common';
import { LOG_DATA_SOURCE } from '@gw/database';
import type { DataSource, QueryRunner } from 'typeorm';
import type { HourlyDim } from './hourly-buckets.js';
import type { SummedRow } from './log-hourly.repository.js';
import type { DailyBucket } from './log-daily.js';

const COLUMNS = ['dim', 'user_id', 'name', 'day', 'count', 'quota', 'prompt_tokens', 'completion_tokens'];
const SUMMED = ['count', 'quota', 'prompt_tokens', 'completion_tokens'];
/** Buckets per upsert statement (8 parameters each, well under every driver's limit). */
const UPSERT_ROWS = 500;

/** Queries of the daily log sums (`log_daily`), which the aggregator keeps beside the hourly ones. */
@Injectable()
export class LogDailyRepository {
  private readonly kind: 'sqlite' | 'mysql' | 'postgres';

  constructor(@Inject(LOG_DATA_SOURCE) private readonly dataSource: DataSource) {
    const type = dataSource.options.type;
    this.kind = type === 'better-sqlite3' ? 'sqlite' : type === 'postgres' ? 'postgres' : 'mysql';
  }

  /** Adds the buckets into their rows, inside the caller's transaction (the one that moves the cursor). */
  async add(runner: QueryRunner, buckets: DailyBucket[]): Promise<void> {
    for (let i = 0; i < buckets.length; i += UPSERT_ROWS) await this.upsert(runner, buckets.slice(i, i + UPSERT_ROWS));
  }

  /**
   * Every key of a dimension, per day, over the days [fromDay, toDay); `at` is the day's start. In the
   * covering index's order, only the columns the answer shows (see LogHourlyRepository.series).
   */
  series(dim: HourlyDim, fromDay: number, toDay: number): Promise<SummedRow[]> {
    const day = this.q('day');
    return this.dataSource.query(
      `SELECT name, ${day} AS ${this.q('at')}, count, quota, prompt_tokens + completion_tokens AS tokens FROM log_daily
       WHERE dim = ${this.p(1)} AND ${day} >= ${this.p(2)} AND ${day} < ${this.p(3)} ORDER BY ${day}, name`,
      [dim, fromDay, toDay],
    );
  }

  /**
   * The hourly sums of the hours [fromHour, toHour) added up per key, for the partial days at the edges of a
   * per-day answer (each span lies inside one day); `at` is fromHour.
   */
  async hoursSummed(dim: HourlyDim, fromHour: number, toHour: number): Promise<SummedRow[]> {
    const rows: SummedRow[] = await this.dataSource.query(
      `SELECT name, SUM(count) AS count, SUM(quota) AS quota, SUM(prompt_tokens + completion_tokens) AS tokens
       FROM log_hourly WHERE dim = ${this.p(1)} AND hour >= ${this.p(2)} AND hour < ${this.p(3)} GROUP BY name`,
      [dim, fromHour, toHour],
    );
    for (const row of rows) row.at = fromHour;
    return rows;
  }

  private async upsert(runner: QueryRunner, buckets: DailyBucket[]): Promise<void> {
    const params: unknown[] = [];
    const tuples = buckets.map((b) => {
      const base = params.length;
      params.push(b.dim, b.userId, b.name, b.day, b.count, b.quota, b.promptTokens, b.completionTokens);
      return `(${COLUMNS.map((_, i) => this.p(base + i + 1)).join(', ')})`;
    });
    const columns = COLUMNS.map((c) => this.q(c)).join(', ');
    const conflict =
      this.kind === 'mysql'
        ? `ON DUPLICATE KEY UPDATE ${SUMMED.map((c) => `${this.q(c)} = ${this.q(c)} + VALUES(${this.q(c)})`).join(', ')}`
        : `ON CONFLICT (dim, user_id, name, ${this.q('day')}) DO UPDATE SET ${SUMMED.map((c) => `${this.q(c)} = log_daily.${this.q(c)} + excluded.${this.q(c)}`).join(', ')}`;
    await runner.query(`INSERT INTO log_daily (${columns}) VALUES ${tuples.join(', ')} ${conflict}`, params);
  }

  private p(n: number): string {
    return this.kind === 'postgres' ? `$${n}` : '?';
  }

  private q(name: string): string {
    return this.kind === 'mysql' ? `\`${name}\`` : `"${name}"`;
  }
}
