import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TestDatabase } from './databases.js';

/** Reads a suite's database directly (not through a gateway), to check what the gateways wrote. */
export interface SqlReader {
  /** `?` placeholders on every database. */
  rows<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function openSqlReader(db: TestDatabase): Promise<SqlReader> {
  if (db.kind === 'sqlite') {
    const conn = new Database(db.env.SQLITE_PATH!, { readonly: true, fileMustExist: true });
    conn.pragma('busy_timeout = 30000');
    return {
      rows: async <T>(sql: string, params: unknown[] = []) => conn.prepare(sql).all(...params) as T[],
      close: async () => {
        conn.close();
      },
    };
  }
  if (db.kind === 'mysql') {
    const conn = await mysql.createConnection({ uri: db.env.SQL_DSN!, supportBigNumbers: true, bigNumberStrings: false });
    return {
      rows: async <T>(sql: string, params: unknown[] = []) => (await conn.query(sql, params))[0] as T[],
      close: () => conn.end(),
    };
  }
  const client = new pg.Client({ connectionString: db.env.SQL_DSN! });
  await client.connect();
  return {
    rows: async <T>(sql: string, params: unknown[] = []) => {
      let n = 0;
      return (
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as T[];
    },
    close: () => client.end(),
  };
}
