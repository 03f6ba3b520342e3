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

/** Floating columns: new-api's `float64` is NUMERIC on PostgreSQL, which the driver returns as a string. */
export const floatNumber: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined ? value : Number(value)),
};

/**
 * A JSON document kept as text. new-api declares some of these columns `json`, which PostgreSQL's driver
 * hands back already parsed while SQLite and MySQL return text: both come out as the JSON text.
 */
export const jsonColumn: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined || typeof value === 'string' ? value : JSON.stringify(value)),
};
