// Literals for the one-trip batches' SQL text (mysql-one-trip.ts, postgres-one-trip.ts): values go into the text
// only when they cannot need escaping, so the text is safe on every server and sql_mode.

/**
 * What a one-trip statement may carry as a literal: integers, and identifiers such as request ids
 * (letters, digits, `_ : . -`). Nothing here needs escaping, so the text is safe whatever the server's
 * sql_mode (NO_BACKSLASH_ESCAPES changes what an escaped quote means; an unescaped id cannot break out).
 * Anything else makes the movement take the prepared, statement-by-statement path.
 */
const PLAIN_ID = /^[A-Za-z0-9_:.-]{1,191}$/;

/** An integer or plain id as SQL text; undefined for anything else (the batch then goes statement by statement). */
export function sqlLiteral(value: unknown): string | undefined {
  // A negative number in parentheses: `x - -5` must never read as `x --5` (a comment in MySQL).
  if (typeof value === 'number') return Number.isSafeInteger(value) ? (value < 0 ? `(${value})` : String(value)) : undefined;
  if (typeof value === 'string') return PLAIN_ID.test(value) ? `'${value}'` : undefined;
  return undefined;
}

/** `CASE <column> WHEN 'a' THEN x … END`; undefined when a key or value cannot be a plain literal. */
export function sqlCase(column: string, keys: readonly string[], values: readonly (number | string)[]): string | undefined {
  const arms: string[] = [];
  for (const [i, key] of keys.entries()) {
    const k = sqlLiteral(key);
    const v = sqlLiteral(values[i]);
    if (k === undefined || v === undefined) return undefined;
    arms.push(`WHEN ${k} THEN ${v}`);
  }
  return `CASE ${column} ${arms.join(' ')} END`;
}

/** A sum as a literal, exact: undefined beyond 2^53 or for a value that is not an integer. */
export function sqlSum(values: readonly number[]): string | undefined {
  let total = 0;
  for (const value of values) {
    if (!Number.isSafeInteger(value)) return undefined;
    total += value;
  }
  return sqlLiteral(total);
}
