import type { DataSource } from 'typeorm';
import type { HourlyDim } from './hourly-buckets.js';

const DAY = 86_400;

export type SqlKind = 'sqlite' | 'mysql' | 'postgres';

/** Which sums a dashboard series reads: the hourly ones, or the daily ones (dated at the day's row time). */
export interface SeriesTable {
  table: 'log_hourly' | 'log_daily';
  /** The time column (`hour` or `day`). */
  column: 'hour' | 'day';
  /** Added to the column's value to give the row's created_at (a day's row is dated at its 12:00 UTC). */
  offset: number;
}

/**
 * The dashboard rows of one dimension over [from, to) of `source`, as the JSON text new-api's answer holds
 * (`{"id":0,"user_id":0,"username":…,"model_name":…,"created_at":…,"token_used":…,"count":…,"quota":…}`,
 * ordered by time, then name by code point, as the rows path sorts them), rendered by the database: a 90-day
 * hourly answer is ~90 k rows at 40 models, and building and serialising one object per row in JS cost
 * seconds of mostly garbage collection. Read one UTC day per statement, so each string stays small (MySQL
 * caps one value at max_allowed_packet) and SQLite's synchronous driver gives the event loop a turn between
 * days. Undefined when a day's text hit the server's cap (the caller reads rows instead).
 */
export async function readSeriesJson(
  dataSource: DataSource,
  kind: SqlKind,
  source: SeriesTable,
  dim: HourlyDim,
  from: number,
  to: number,
): Promise<string[] | undefined> {
  const sql = seriesJsonSql(kind, source, dim);
  const parts: string[] = [];
  const runner = dataSource.createQueryRunner();
  try {
    let cap = Number.POSITIVE_INFINITY;
    if (kind === 'mysql') {
      // GROUP_CONCAT stops at group_concat_max_len (1 MB by default) with only a warning: lift it to the
      // packet size, the most one value can be, and treat a value that long as cut.
      await runner.query('SET SESSION group_concat_max_len = @@max_allowed_packet');
      const [row] = await runner.query('SELECT @@group_concat_max_len AS n');
      cap = Number(row?.n);
    }
    for (let start = from; start < to; ) {
      const end = Math.min(to, (Math.floor(start / DAY) + 1) * DAY);
      const [row] = await runner.query(sql, [dim, start, end]);
      const text = row?.j == null ? '' : String(row.j);
      if (text.length > 0 && Buffer.byteLength(text) >= cap) return undefined;
      if (text.length > 0) parts.push(text);
      start = end;
    }
    return parts;
  } finally {
    await runner.release();
  }
}

/** The rendered rows and the rows built in JS (already in order after them) as one JSON array. */
export function joinJson(parts: string[], after: unknown[] = []): string {
  const all = after.length > 0 ? [...parts, JSON.stringify(after).slice(1, -1)] : parts;
  return `[${all.join(',')}]`;
}

/** One statement: the rows with dim = $1 and $2 <= time < $3 as comma-separated JSON objects (NULL when none). */
export function seriesJsonSql(kind: SqlKind, source: SeriesTable, dim: HourlyDim): string {
  const t = kind === 'mysql' ? `\`${source.column}\`` : `"${source.column}"`;
  const at = source.offset ? `${t} + ${source.offset}` : t;
  const where = `FROM ${source.table} WHERE dim = ${p(kind, 1)} AND ${t} >= ${p(kind, 2)} AND ${t} < ${p(kind, 3)}`;
  const tokens = 'prompt_tokens + completion_tokens';
  const username = dim === 'username';
  if (kind === 'sqlite') {
    // json_object keeps the keys in this order and escapes as JSON.stringify does; BINARY order is code point order.
    const object = `json_object('id', 0, 'user_id', 0, 'username', ${username ? 'name' : "''"}, 'model_name', ${username ? "''" : 'name'}, 'created_at', ${at}, 'token_used', ${tokens}, 'count', count, 'quota', quota)`;
    return `SELECT group_concat(${object}, ',' ORDER BY ${t}, name) AS j ${where}`;
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
  if (kind === 'mysql') {
    // JSON_OBJECT would write `"key": value` with spaces; CONCAT writes the compact text new-api sends.
    return `SELECT GROUP_CONCAT(CONCAT(${pieces.join(', ')}) ORDER BY ${t}, CAST(name AS BINARY) SEPARATOR ',') AS j ${where}`;
  }
  return `SELECT string_agg(${pieces.map((x) => `(${x})`).join(' || ')}, ',' ORDER BY ${t}, name COLLATE "C") AS j ${where}`;
}

function p(kind: SqlKind, n: number): string {
  return kind === 'postgres' ? `$${n}` : '?';
}
