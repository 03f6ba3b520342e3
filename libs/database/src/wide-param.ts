import type { DataSource } from 'typeorm';

/**
 * A bound number compared with a quota column that may be INTEGER: new-api's schema makes `users.quota`
 * INT, and PostgreSQL types an untyped parameter after the column it meets, so a bound like 2^53 − 1 fails
 * with "out of range for type integer". Cast it to BIGINT there; MySQL and SQLite need no cast.
 */
export function wideParam(dataSource: DataSource, name: string): string {
  return dataSource.options.type === 'postgres' ? `CAST(:${name} AS BIGINT)` : `:${name}`;
}
