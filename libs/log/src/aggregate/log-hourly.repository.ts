import { Inject, Injectable } from '@nestjs/common';
import { LOG_DATA_SOURCE } from '@gw/database';
import type { DataSource, QueryRunner } from 'typeorm';
import { withLargeSqliteCache } from '@gw/database';
import type { ConsumeRow, HourlyBucket, HourlyDim } from './hourly-buckets.js';

const CURSOR = 'hourly';
const CONSUME = 2;
const BUCKET_COLUMNS = ['dim', 'user_id', 'name', 'hour', 'count', 'quota', 'prompt_tokens', 'completion_tokens'];
const SUMMED = ['count', 'quota', 'prompt_tokens', 'completion_tokens'];
/** Buckets per upsert statement (8 parameters each, well under every driver's limit). */
const UPSERT_ROWS = 500;

/**
 * One key's sums at one time as the driver returns them (numbers, or strings for big integers): the
 * dashboard reads up to a few hundred thousand of these, so they go straight into its answer rows.
 */
export interface SummedRow {
  name: unknown;
  at: unknown;
  count: unknown;
  quota: unknown;
  tokens: unknown;
}

/** Queries of the hourly log sums (`log_hourly`) and of the cursor that says which logs they cover. */
@Injectable()
export class LogHourlyRepository {
  private readonly kind: 'sqlite' | 'mysql' | 'postgres';

  constructor(@Inject(LOG_DATA_SOURCE) private readonly dataSource: DataSource) {
    const type = dataSource.options.type;
    this.kind = type === 'better-sqlite3' ? 'sqlite' : type === 'postgres' ? 'postgres' : 'mysql';
  }

  get isSqlite(): boolean {
    return this.kind === 'sqlite';
  }

  /** Runs `work` with a larger SQLite page cache (see withLargeSqliteCache). */
  withLargeSqliteCache<T>(work: () => Promise<T>): Promise<T> {
    return withLargeSqliteCache(this.dataSource, work);
  }

  /** The highest log id (a primary-key lookup). */
  async maxLogId(): Promise<number> {
    const [row] = await this.dataSource.query('SELECT MAX(id) AS id FROM logs');
    return Number(row?.id ?? 0);
  }

  /** The highest log id the sums cover (0 before the first aggregation). */
  async coveredUpTo(): Promise<number> {
    const [row] = await this.dataSource.query(`SELECT last_id FROM log_aggregate_cursors WHERE name = ${this.p(1)}`, [CURSOR]);
    if (row) return Number(row.last_id);
    // First start: the cursor row is created once; a second instance racing here hits the primary key.
    await this.dataSource
      .query(`INSERT INTO log_aggregate_cursors (name, last_id) VALUES (${this.p(1)}, 0)`, [CURSOR])
      .catch(() => undefined);
    return 0;
  }

  /**
   * Consume rows with afterId < id <= upToId. Only the primary-key range is in the SQL (the type is checked
   * here), so every database reads exactly that range instead of an index of a wider one.
   */
  async consumeRows(afterId: number, upToId: number): Promise<ConsumeRow[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT type, user_id, username, token_name, model_name, channel_id, ${this.q('group')} AS grp, created_at, quota, prompt_tokens, completion_tokens
       FROM logs WHERE id > ${this.p(1)} AND id <= ${this.p(2)}`,
      [afterId, upToId],
    );
    return rows.filter((r) => Number(r.type) === CONSUME).map(toConsumeRow);
  }

  /**
   * Adds the buckets of the logs (fromId, toId] and moves the cursor, in one transaction. The cursor moves
   * first and only from `fromId` (compare and set): an instance that lost the race to another adds nothing,
   * so every log is counted exactly once however many instances aggregate. False when the race was lost.
   * `alsoAdd` writes the other sums of the same logs (the daily ones) inside the same transaction.
   */
  async commit(fromId: number, toId: number, buckets: HourlyBucket[], alsoAdd?: (runner: QueryRunner) => Promise<void>): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const runner = manager.queryRunner as QueryRunner;
      const moved = await runner.query(
        `UPDATE log_aggregate_cursors SET last_id = ${this.p(1)} WHERE name = ${this.p(2)} AND last_id = ${this.p(3)}`,
        [toId, CURSOR, fromId],
        true,
      );
      if (!moved.affected) return false;
      for (let i = 0; i < buckets.length; i += UPSERT_ROWS) await this.upsert(runner, buckets.slice(i, i + UPSERT_ROWS));
      await alsoAdd?.(runner);
      return true;
    });
  }

  /** Sum of quota over the whole hours [fromHour, toHour) of one key. */
  async sumQuota(dim: HourlyDim, userId: number, name: string, fromHour: number, toHour: number): Promise<number> {
    // SQLite without statistics (the gateway never runs ANALYZE) prefers the covering (dim, hour, …) index and
    // reads every key of the dimension over the range: 2.7 s for one username at 10 M logs, 6 ms by the key.
    const byKey = this.kind === 'sqlite' ? ' INDEXED BY idx_log_hourly_dim_user_id_name_hour' : '';
    const [row] = await this.dataSource.query(
      `SELECT COALESCE(SUM(quota), 0) AS quota FROM log_hourly${byKey}
       WHERE dim = ${this.p(1)} AND user_id = ${this.p(2)} AND name = ${this.p(3)} AND hour >= ${this.p(4)} AND hour < ${this.p(5)}`,
      [dim, userId, name, fromHour, toHour],
    );
    return Number(row?.quota ?? 0);
  }

  /**
   * Every key of a dimension, per hour, over the hours [fromHour, toHour), in the covering index's order:
   * only the columns the answer shows, with the tokens added up by the database.
   */
  series(dim: HourlyDim, fromHour: number, toHour: number): Promise<SummedRow[]> {
    return this.dataSource.query(
      `SELECT name, hour AS ${this.q('at')}, count, quota, prompt_tokens + completion_tokens AS tokens FROM log_hourly
       WHERE dim = ${this.p(1)} AND hour >= ${this.p(2)} AND hour < ${this.p(3)} ORDER BY hour, name`,
      [dim, fromHour, toHour],
    );
  }

  /** Whether `series` over these hours has more than `limit` rows (an index range counted up to limit + 1 entries). */
  async seriesExceeds(dim: HourlyDim, fromHour: number, toHour: number, limit: number): Promise<boolean> {
    const [row] = await this.dataSource.query(
      `SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM log_hourly
         WHERE dim = ${this.p(1)} AND hour >= ${this.p(2)} AND hour < ${this.p(3)} LIMIT ${Math.floor(limit) + 1}) counted`,
      [dim, fromHour, toHour],
    );
    return Number(row?.n ?? 0) > limit;
  }

  private async upsert(runner: QueryRunner, buckets: HourlyBucket[]): Promise<void> {
    const params: unknown[] = [];
    const tuples = buckets.map((b) => {
      const base = params.length;
      params.push(b.dim, b.userId, b.name, b.hour, b.count, b.quota, b.promptTokens, b.completionTokens);
      return `(${BUCKET_COLUMNS.map((_, i) => this.p(base + i + 1)).join(', ')})`;
    });
    const columns = BUCKET_COLUMNS.map((c) => this.q(c)).join(', ');
    const conflict =
      this.kind === 'mysql'
        ? `ON DUPLICATE KEY UPDATE ${SUMMED.map((c) => `${this.q(c)} = ${this.q(c)} + VALUES(${this.q(c)})`).join(', ')}`
        : `ON CONFLICT (dim, user_id, name, hour) DO UPDATE SET ${SUMMED.map((c) => `${this.q(c)} = log_hourly.${this.q(c)} + excluded.${this.q(c)}`).join(', ')}`;
    await runner.query(`INSERT INTO log_hourly (${columns}) VALUES ${tuples.join(', ')} ${conflict}`, params);
  }

  private p(n: number): string {
    return this.kind === 'postgres' ? `$${n}` : '?';
  }

  private q(name: string): string {
    return this.kind === 'mysql' ? `\`${name}\`` : `"${name}"`;
  }
}

function toConsumeRow(r: Record<string, unknown>): ConsumeRow {
  return {
    userId: Number(r.user_id ?? 0),
    username: String(r.username ?? ''),
    tokenName: String(r.token_name ?? ''),
    modelName: String(r.model_name ?? ''),
    channelId: Number(r.channel_id ?? 0),
    group: String(r.grp ?? ''),
    createdAt: Number(r.created_at ?? 0),
    quota: Number(r.quota ?? 0),
    promptTokens: Number(r.prompt_tokens ?? 0),
    completionTokens: Number(r.completion_tokens ?? 0),
  };
}
