import type { ValueTransformer } from 'typeorm';

/**
 * JSON stored as text. new-api declares these columns `json`, which PostgreSQL's driver hands back
 * already parsed (and MySQL as a string), so both forms are accepted when reading an existing database.
 */
export const jsonText: ValueTransformer = {
  to: (value: unknown) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value)),
  from: (value: unknown) => {
    if (value === null || value === undefined || value === '') return null;
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return null;
    }
  },
};
