import type { JsonRun } from '@gw/core';
import type { QueryRunner } from 'typeorm';
import type { HourlyDim } from './hourly-buckets.js';
import { DAY_ROW_OFFSET } from './log-daily.js';

export type SqlKind = 'sqlite' | 'mysql' | 'postgres';

/**
 * A text expression read as its UTF-8 bytes (each driver then returns a Buffer): dashboard texts of tens of MB go
 * to the socket as they are, instead of being decoded into strings here and encoded back on the way out.
 */
export function utf8Bytes(kind: SqlKind, expression: string): string {
  if (kind === 'postgres') return `convert_to(${expression}, 'UTF8')`;
  return `CAST(${expression} AS ${kind === 'mysql' ? 'BINARY' : 'BLOB'})`;
}

/** A binary column value as a Buffer (a driver may still give a string: then its UTF-8 encoding). */
export function asBytes(value: unknown): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'utf8');
}

/** Which sums a dashboard series reads: the hourly ones, or the daily ones (dated at the day's row time). */
export interface SeriesTable {
  table: 'log_hourly' | 'log_daily';
  /** The time column (`hour` or `day`). */
  column: 'hour' | 'day';
  /** Added to the column's value to give the row's created_at (a day's row is dated at its 12:00 UTC). */
  offset: number;
}

/**
 * Rows built in JS before, the rendered runs, then rows built in JS after (each list already in order), as the
 * runs of one JSON array (jsonArray): streamed run by run, never joined into one string.
 */
export function jsonRuns(before: unknown[], parts: readonly JsonRun[], after: unknown[] = []): JsonRun[] {
  const run = (rows: unknown[]) => (rows.length > 0 ? [JSON.stringify(rows).slice(1, -1)] : []);
  return [...run(before), ...parts, ...run(after)];
}

/**
 * One statement: the rows with dim = $1 and $2 <= time < $3 as comma-separated JSON objects (NULL when none), as
 * text or, with `bytes`, as its UTF-8 bytes.
 */
export function seriesJsonSql(kind: SqlKind, source: SeriesTable, dim: HourlyDim, bytes = false): string {
  const t = kind === 'mysql' ? `\`${source.column}\`` : `"${source.column}"`;
  const where = `FROM ${source.table} WHERE dim = ${p(kind, 1)} AND ${t} >= ${p(kind, 2)} AND ${t} < ${p(kind, 3)}`;
  const rows = concatRows(kind, source, dim, `${t}, ${byName(kind)}`);
  return `SELECT ${bytes ? utf8Bytes(kind, rows) : rows} AS j ${where}`;
}

/**
 * One statement: per hour of `log_hourly` with dim = $1 and $2 <= hour < $3, the hour (`at`), its number of
 * rows (`n`) and its rows as comma-separated JSON objects ordered by name (`j`): each hour's text on its own.
 */
export function hourTextsSql(kind: SqlKind, dim: HourlyDim): string {
  const source: SeriesTable = { table: 'log_hourly', column: 'hour', offset: 0 };
  const at = kind === 'mysql' ? '`at`' : '"at"';
  return `SELECT hour AS ${at}, COUNT(*) AS n, ${concatRows(kind, source, dim, byName(kind))} AS j FROM log_hourly
    WHERE dim = ${p(kind, 1)} AND hour >= ${p(kind, 2)} AND hour < ${p(kind, 3)} GROUP BY hour`;
}

/**
 * One statement: the rows of `log_daily` with dim = $1 and $2 <= day < $3 (one UTC day), their number (`n`) and
 * their JSON objects dated at the day's row time, ordered by name (`j`), in new-api's row shape. Rendered by the
 * database: building and serialising one object per row in JS cost seconds of mostly garbage collection at
 * 90 days of 2,000 users, and one day per statement keeps each string under MySQL's cap on one value.
 */
export function dayTextSql(kind: SqlKind, dim: HourlyDim): string {
  const source: SeriesTable = { table: 'log_daily', column: 'day', offset: DAY_ROW_OFFSET };
  const day = kind === 'mysql' ? '`day`' : '"day"';
  return `SELECT COUNT(*) AS n, ${concatRows(kind, source, dim, byName(kind))} AS j FROM log_daily
    WHERE dim = ${p(kind, 1)} AND ${day} >= ${p(kind, 2)} AND ${day} < ${p(kind, 3)}`;
}

/** The name in code point order (UTF-8 byte order), as the rows path sorts names. */
function byName(kind: SqlKind): string {
  // SQLite's BINARY collation is code point order already.
  if (kind === 'mysql') return 'CAST(name AS BINARY)';
  return kind === 'postgres' ? 'name COLLATE "C"' : 'name';
}

/** The aggregate that joins the rows' JSON objects with commas, in `order`. */
function concatRows(kind: SqlKind, source: SeriesTable, dim: HourlyDim, order: string): string {
  const t = kind === 'mysql' ? `\`${source.column}\`` : `"${source.column}"`;
  const at = source.offset ? `${t} + ${source.offset}` : t;
  const tokens = 'prompt_tokens + completion_tokens';
  const username = dim === 'username';
  if (kind === 'sqlite') {
    // json_object keeps the keys in this order and escapes as JSON.stringify does.
    const object = `json_object('id', 0, 'user_id', 0, 'username', ${username ? 'name' : "''"}, 'model_name', ${username ? "''" : 'name'}, 'created_at', ${at}, 'token_used', ${tokens}, 'count', count, 'quota', quota)`;
    return `group_concat(${object}, ',' ORDER BY ${order})`;
  }
  const quoted = kind === 'mysql' ? 'JSON_QUOTE(name)' : 'to_json(name)::text';
  const pieces = [
    `'{"id":0,"user_id":0,"username":'`,
    username ? quoted : `'""'`,
    `',"model_name":'`,
    username ? `'""'` : quoted,
    `',"created_at":'`,
    at,
    `',"token_used":'`,
    `(${tokens})`,
    `',"count":'`,
    'count',
    `',"quota":'`,
    'quota',
    `'}'`,
  ];
  // JSON_OBJECT would write `"key": value` with spaces; CONCAT writes the compact text new-api sends.
  if (kind === 'mysql') return `GROUP_CONCAT(CONCAT(${pieces.join(', ')}) ORDER BY ${order} SEPARATOR ',')`;
  return `string_agg(${pieces.map((x) => `(${x})`).join(' || ')}, ',' ORDER BY ${order})`;
}

/**
 * On MySQL, lifts GROUP_CONCAT's cap (group_concat_max_len, 1 MB by default, beyond which it cuts with only
 * a warning) to the packet size, the most one value can be, and returns that cap: a text that long was cut.
 */
export async function liftConcatCap(runner: QueryRunner, kind: SqlKind): Promise<number> {
  if (kind !== 'mysql') return Number.POSITIVE_INFINITY;
  await runner.query('SET SESSION group_concat_max_len = @@max_allowed_packet');
  const [row] = await runner.query('SELECT @@group_concat_max_len AS n');
  return Number(row?.n);
}

function p(kind: SqlKind, n: number): string {
  return kind === 'postgres' ? `$${n}` : '?';
}
