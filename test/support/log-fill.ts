import type { DataSource } from 'typeorm';
import { LogType } from '@gw/log';

export interface LogFill {
  rows: number;
  /** created_at of row 0 (unix seconds); row i is at from + floor(i * span / rows), so ids follow time. */
  from: number;
  span: number;
  /** Row i belongs to user firstUserId + i % users, named `user-${i % users}`. */
  users?: number;
  firstUserId?: number;
  tokens?: number;
  models?: number;
  channels?: number;
  groups?: number;
  /** One row in this many is a top-up; the rest are consume rows. 0 = none. */
  topUpEvery?: number;
  /** request_id of row i is `${requestPrefix}${i}`. */
  requestPrefix?: string;
}

/**
 * Inserts `rows` logs in one INSERT ... SELECT over a generated sequence (a cross join of digit tables, which
 * every database runs without a recursion limit): the database makes 200 k rows in seconds, where building
 * them as parameters in the test process took most of a minute of CPU.
 */
export async function fillLogs(dataSource: DataSource, fill: LogFill): Promise<void> {
  const kind = dataSource.options.type;
  const mysql = kind === 'mysql' || kind === 'mariadb';
  const { rows, from, span } = fill;
  const users = fill.users ?? 50;
  const digits = (n: number) => `(${Array.from({ length: n }, (_, d) => `SELECT ${d} AS d`).join(' UNION ALL ')})`;
  const tables: string[] = [];
  const terms: string[] = [];
  // At least one digit table, so a fill of one row still has a sequence to select from.
  for (let scale = 1; scale === 1 || scale < rows; scale *= 10) {
    const alias = `t${tables.length}`;
    tables.push(`${digits(Math.min(10, Math.ceil(rows / scale)))} ${alias}`);
    terms.push(`${scale} * ${alias}.d`);
  }
  const text = (prefix: string, expr: string) => (mysql ? `CONCAT('${prefix}', ${expr})` : `'${prefix}' || (${expr})`);
  const div = mysql ? 'DIV' : '/';
  // The time step as an integer ratio, reduced so the product i * step stays within 32 bits.
  const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
  const g = gcd(span, rows) || 1;
  const q = (name: string) => (mysql ? `\`${name}\`` : `"${name}"`);
  const topUp = fill.topUpEvery
    ? `CASE WHEN i % ${fill.topUpEvery} = 0 THEN ${LogType.TopUp} ELSE ${LogType.Consume} END`
    : LogType.Consume;
  await dataSource.query(
    `INSERT INTO logs (user_id, username, token_name, token_id, model_name, channel_id, ${q('group')}, type, created_at,
                       request_id, quota, prompt_tokens, completion_tokens)
     SELECT ${fill.firstUserId ?? 1} + i % ${users}, ${text('user-', `i % ${users}`)}, ${text('token-', `i % ${fill.tokens ?? 30}`)},
            1 + i % ${fill.tokens ?? 30}, ${text('model-', `i % ${fill.models ?? 8}`)}, 1 + i % ${fill.channels ?? 5},
            ${text('group-', `i % ${fill.groups ?? 3}`)}, ${topUp}, ${from} + (i * ${span / g}) ${div} ${rows / g},
            ${text(fill.requestPrefix ?? 'fill-', 'i')}, 1 + i % 7, 3, 5
     FROM (SELECT ${terms.join(' + ')} AS i FROM ${tables.join(' CROSS JOIN ')}) seq
     WHERE i < ${rows} ORDER BY i`,
  );
}
