import type { ValueTransformer } from 'typeorm';

/** BIGINT columns come back as strings from PostgreSQL (and MySQL beyond 2^53); quota math wants numbers. */
export const bigintNumber: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined ? value : Number(value)),
};

/** Booleans stored as 0/1 integers portable across SQLite, MySQL and PostgreSQL. */
export const intBoolean: ValueTransformer = {
  to: (value: unknown) => (value === undefined ? undefined : value ? 1 : 0),
  from: (value: unknown) => value === 1 || value === true || value === '1',
};

/** Unix seconds now: new-api stores times as integer seconds. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
