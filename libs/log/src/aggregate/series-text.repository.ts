import { Inject, Injectable } from '@nestjs/common';
import { LOG_DATA_SOURCE } from '@gw/database';
import type { DataSource, QueryRunner } from 'typeorm';
import type { HourlyDim } from './hourly-buckets.js';
import { StoredTextCache } from './stored-text-cache.js';
import { DAY } from './log-daily.js';
import { asBytes, dayTextSql, hourTextsSql, liftConcatCap, type SqlKind, utf8Bytes } from './series-json.js';

/** Hours rendered per statement, aligned to UTC (see render). */
const RENDER_SPAN = 6 * 3600;
/** Texts stored per statement: at most this many characters (under MySQL's packet size) or rows. */
const STORE_BYTES = 2_000_000;
const STORE_ROWS = 200;
/** Hour keys (dimension, hour) per statement that raises their generation. */
const INVALIDATE_ROWS = 500;

/** Hours whose texts are read per statement (a parameter each). */
const READ_HOURS = 500;
/**
 * Bytes of stored texts kept in memory (StoredTextCache): a week of 2,000 users' hours (~28 MB), 90 days of their
 * days (~22 MB) and 90 days of 40 models' hours (~11 MB); only a gateway whose dashboard is used at that scale
 * fills it.
 */
const CACHED_TEXT_BYTES = 64 * 2 ** 20;
/** Whether an hour has a text, without reading the text (SQLite's typeof() reads only the record header). */
const HAS_TEXT: Record<SqlKind, string> = {
  sqlite: "typeof(body) <> 'null'",
  mysql: 'body IS NOT NULL',
  postgres: 'CASE WHEN body IS NULL THEN 0 ELSE 1 END',
};

/** The dashboard dimensions whose hours have stored texts. */
export type TextDim = Extract<HourlyDim, 'model' | 'username'>;
export const TEXT_DIMS: ReadonlySet<HourlyDim> = new Set<HourlyDim>(['model', 'username']);
/**
 * The key of a dimension's per-day texts (the whole UTC days of a per-day answer, from `log_daily`), stored in
 * the same table with the day's start in `hour`: a day's text changes whenever one of its hours does.
 */
export type DayTextDim = `${TextDim}-day`;
export type StoredDim = TextDim | DayTextDim;
export const dayTextDim = (dim: TextDim): DayTextDim => `${dim}-day`;

/** One stored hour: its generation, and its text and row count when the text is current. */
export interface StoredHour {
  gen: number;
  rows: number;
  /**
   * The text as UTF-8 bytes (read as a BLOB: a week of per-user hours is ~28 MB, which as strings was decoded
   * here and encoded again on the way out); undefined when the sums changed since it was rendered (or never was).
   */
  body?: Buffer;
}

/** An hour rendered from the sums: its rows as JSON text, or undefined when MySQL's cap cut it. */
export interface RenderedHour {
  rows: number;
  text?: string;
}

/**
 * Queries of `log_series_text`, the dashboard's completed hours kept as the JSON text of their rows (see the
 * migration): reads, renders from `log_hourly`, stores under the generation read, and invalidation by the
 * aggregator inside its own transaction.
 */
@Injectable()
export class SeriesTextRepository {
  private readonly kind: SqlKind;
  private readonly cache = new StoredTextCache(CACHED_TEXT_BYTES);

  constructor(@Inject(LOG_DATA_SOURCE) private readonly dataSource: DataSource) {
    const type = dataSource.options.type;
    this.kind = type === 'better-sqlite3' ? 'sqlite' : type === 'postgres' ? 'postgres' : 'mysql';
  }

  /**
   * Raises the generation of these hours and drops their texts, inside the caller's transaction (the one that
   * adds into their sums): a text rendered before that commit can no longer be stored, and none stored is stale.
   * Keys in one order, so two transactions lock them in the same order.
   */
  async invalidate(runner: QueryRunner, keys: Array<{ dim: HourlyDim; hour: number }>): Promise<void> {
    const unique = new Map<string, { dim: StoredDim; hour: number }>();
    for (const key of keys) {
      if (!TEXT_DIMS.has(key.dim)) continue;
      const dim = key.dim as TextDim;
      const day = key.hour - (key.hour % DAY);
      unique.set(`${dim}\u0000${key.hour}`, { dim, hour: key.hour });
      // The daily sums of the hour's day change in the same transaction (LogDailyRepository.add).
      unique.set(`${dayTextDim(dim)}\u0000${day}`, { dim: dayTextDim(dim), hour: day });
    }
    const sorted = [...unique.values()].sort((a, b) => (a.dim < b.dim ? -1 : a.dim > b.dim ? 1 : a.hour - b.hour));
    const conflict =
      this.kind === 'mysql'
        ? 'ON DUPLICATE KEY UPDATE gen = gen + 1, body = NULL'
        : 'ON CONFLICT (dim, hour) DO UPDATE SET gen = log_series_text.gen + 1, body = NULL';
    for (let i = 0; i < sorted.length; i += INVALIDATE_ROWS) {
      const chunk = sorted.slice(i, i + INVALIDATE_ROWS);
      const params = chunk.flatMap((k) => [k.dim, k.hour]);
      const tuples = chunk.map((_, j) => `(${this.p(2 * j + 1)}, ${this.p(2 * j + 2)}, 1, 0, NULL)`);
      await runner.query(`INSERT INTO log_series_text (dim, hour, gen, row_count, body) VALUES ${tuples.join(', ')} ${conflict}`, params);
    }
  }

  /**
   * Drops the texts of the hours before `beforeHour` (the space of ranges no longer kept rendered). The rows
   * stay and their generation is raised, as an invalidation does: a reader that rendered under the old
   * generation must not store its text, and a deleted row would let a new one start at the same generation.
   */
  async dropBefore(dim: TextDim, beforeHour: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE log_series_text SET gen = gen + 1, body = NULL, row_count = 0
       WHERE dim = ${this.p(1)} AND hour < ${this.p(2)} AND body IS NOT NULL`,
      [dim, beforeHour],
    );
  }

  /** The row counts of the hours [fromHour, toHour) whose texts are current, and how many hours have none. */
  async currentRowCounts(dim: TextDim, fromHour: number, toHour: number): Promise<{ rows: number; missing: number }> {
    const [row] = await this.dataSource.query(
      `SELECT COUNT(*) AS hours, COALESCE(SUM(row_count), 0) AS n FROM log_series_text
       WHERE dim = ${this.p(1)} AND hour >= ${this.p(2)} AND hour < ${this.p(3)} AND body IS NOT NULL`,
      [dim, fromHour, toHour],
    );
    return { rows: Number(row?.n ?? 0), missing: (toHour - fromHour) / 3600 - Number(row?.hours ?? 0) };
  }

  /** The hours in [fromHour, toHour) whose texts are current (no text read). */
  async currentHours(dim: TextDim, fromHour: number, toHour: number): Promise<Set<number>> {
    const rows: Array<{ hour: unknown }> = await this.dataSource.query(
      `SELECT hour FROM log_series_text WHERE dim = ${this.p(1)} AND hour >= ${this.p(2)} AND hour < ${this.p(3)} AND body IS NOT NULL`,
      [dim, fromHour, toHour],
    );
    return new Set(rows.map((r) => Number(r.hour)));
  }

  /** The generation of each hour in [fromHour, toHour) that has a row (no text read). */
  async generations(dim: TextDim, fromHour: number, toHour: number): Promise<Map<number, number>> {
    const rows: Array<{ hour: unknown; gen: unknown }> = await this.dataSource.query(
      `SELECT hour, gen FROM log_series_text WHERE dim = ${this.p(1)} AND hour >= ${this.p(2)} AND hour < ${this.p(3)}`,
      [dim, fromHour, toHour],
    );
    return new Map(rows.map((r) => [Number(r.hour), Number(r.gen)]));
  }

  /**
   * The stored hours in [fromHour, toHour), by hour. Their generations are read first; a current text comes from
   * memory when it was read before under that same generation, and only the others' texts are read (as bytes).
   */
  async read(dim: StoredDim, fromHour: number, toHour: number): Promise<Map<number, StoredHour>> {
    const rows: Array<{ hour: unknown; gen: unknown; row_count: unknown; has_text: unknown }> = await this.dataSource.query(
      `SELECT hour, gen, row_count, ${HAS_TEXT[this.kind]} AS has_text FROM log_series_text
       WHERE dim = ${this.p(1)} AND hour >= ${this.p(2)} AND hour < ${this.p(3)}`,
      [dim, fromHour, toHour],
    );
    const hours = new Map<number, StoredHour>();
    const unread: number[] = [];
    for (const row of rows) {
      const hour = Number(row.hour);
      const gen = Number(row.gen);
      const hasText = Number(row.has_text) === 1;
      const body = hasText ? this.cache.get(dim, hour, gen) : undefined;
      if (hasText && !body) unread.push(hour);
      hours.set(hour, { gen, rows: Number(row.row_count), body });
    }
    for (let i = 0; i < unread.length; i += READ_HOURS) {
      const chunk = unread.slice(i, i + READ_HOURS);
      const texts: Array<{ hour: unknown; gen: unknown; row_count: unknown; body: unknown }> = await this.dataSource.query(
        `SELECT hour, gen, row_count, ${utf8Bytes(this.kind, 'body')} AS body FROM log_series_text
         WHERE dim = ${this.p(1)} AND hour IN (${chunk.map((_, j) => this.p(j + 2)).join(', ')}) AND body IS NOT NULL`,
        [dim, ...chunk],
      );
      // Each text with the generation read beside it: a text stored or dropped in between is taken as it is now
      // (a dropped one stays missing and is rendered; its old generation then keeps the render from being stored).
      for (const row of texts) {
        const hour = Number(row.hour);
        const gen = Number(row.gen);
        const body = asBytes(row.body);
        this.cache.set(dim, hour, gen, body);
        hours.set(hour, { gen, rows: Number(row.row_count), body });
      }
    }
    return hours;
  }

  /**
   * The rows of every hour in [fromHour, toHour) rendered from the sums, one statement per 6 hours (a
   * quarter of a UTC day: at 2,000 users a statement renders ~9 k rows, and SQLite's synchronous driver lets the
   * event loop run between statements). Hours without rows are rendered too (as no rows).
   */
  async render(dim: TextDim, fromHour: number, toHour: number): Promise<Map<number, RenderedHour>> {
    const sql = hourTextsSql(this.kind, dim);
    const hours = new Map<number, RenderedHour>();
    const runner = this.dataSource.createQueryRunner();
    try {
      const cap = await liftConcatCap(runner, this.kind);
      for (let start = fromHour; start < toHour; ) {
        const end = Math.min(toHour, (Math.floor(start / RENDER_SPAN) + 1) * RENDER_SPAN);
        for (let h = start; h < end; h += 3600) hours.set(h, { rows: 0, text: '' });
        const rows: Array<{ at: unknown; n: unknown; j: unknown }> = await runner.query(sql, [dim, start, end]);
        for (const row of rows) {
          const text = row.j == null ? '' : String(row.j);
          const cut = Buffer.byteLength(text) >= cap;
          hours.set(Number(row.at), { rows: Number(row.n), text: cut ? undefined : text });
        }
        start = end;
      }
      return hours;
    } finally {
      await runner.release();
    }
  }

  /**
   * The rows of every UTC day in [fromDay, toDay) rendered from the daily sums, one statement per day (dated at
   * the day's row time, ordered by name). Days without rows are rendered too (as no rows).
   */
  async renderDays(dim: TextDim, fromDay: number, toDay: number): Promise<Map<number, RenderedHour>> {
    const sql = dayTextSql(this.kind, dim);
    const days = new Map<number, RenderedHour>();
    const runner = this.dataSource.createQueryRunner();
    try {
      const cap = await liftConcatCap(runner, this.kind);
      for (let day = fromDay; day < toDay; day += DAY) {
        const [row]: Array<{ n: unknown; j: unknown }> = await runner.query(sql, [dim, day, day + DAY]);
        const text = row?.j == null ? '' : String(row.j);
        days.set(day, { rows: Number(row?.n ?? 0), text: Buffer.byteLength(text) >= cap ? undefined : text });
      }
      return days;
    } finally {
      await runner.release();
    }
  }

  /**
   * Stores the hours' texts that are still current: an hour with a row is updated only if its generation is
   * still the one read before rendering (`gen`); an hour that had no row (`gen` undefined) gets one unless the
   * aggregator created it meanwhile. A text that lost such a race is not stored.
   */
  async store(dim: StoredDim, hours: Array<{ hour: number; gen?: number; rows: number; text: string }>): Promise<void> {
    const fresh = hours.filter((h) => h.gen === undefined);
    for (const h of hours)
      if (h.gen !== undefined)
        await this.dataSource.query(
          `UPDATE log_series_text SET row_count = ${this.p(1)}, body = ${this.p(2)}
           WHERE dim = ${this.p(3)} AND hour = ${this.p(4)} AND gen = ${this.p(5)} AND body IS NULL`,
          [h.rows, h.text, dim, h.hour, h.gen],
        );
    // New rows go in a few multi-row statements (a first 90-day read stores 2,160 hours), each under ~2 MB.
    const ignore = this.kind === 'mysql' ? 'ON DUPLICATE KEY UPDATE gen = gen' : 'ON CONFLICT (dim, hour) DO NOTHING';
    for (let i = 0; i < fresh.length; ) {
      const params: unknown[] = [];
      const tuples: string[] = [];
      for (let bytes = 0; i < fresh.length && bytes < STORE_BYTES && tuples.length < STORE_ROWS; i++) {
        const h = fresh[i] as (typeof fresh)[number];
        const n = params.length;
        tuples.push(`(${this.p(n + 1)}, ${this.p(n + 2)}, 0, ${this.p(n + 3)}, ${this.p(n + 4)})`);
        params.push(dim, h.hour, h.rows, h.text);
        bytes += h.text.length;
      }
      await this.dataSource.query(
        `INSERT INTO log_series_text (dim, hour, gen, row_count, body) VALUES ${tuples.join(', ')} ${ignore}`,
        params,
      );
    }
  }

  private p(n: number): string {
    return this.kind === 'postgres' ? `$${n}` : '?';
  }
}
