import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TestDatabase } from './databases.js';

/** Reads and writes a test database from outside the gateway (its process may be dead or restarting). */
export interface SqlProbe {
  /** Plain SQL without parameters (tests pass numbers they built themselves). */
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

export async function openSqlProbe(db: TestDatabase): Promise<SqlProbe> {
  if (db.kind === 'sqlite') {
    const sqlite = new Database(db.env.SQLITE_PATH!);
    sqlite.pragma('busy_timeout = 5000');
    return {
      query: async <T>(sql: string) => {
        const statement = sqlite.prepare(sql);
        if (statement.reader) return statement.all() as T[];
        statement.run();
        return [];
      },
      close: async () => void sqlite.close(),
    };
  }
  if (db.kind === 'mysql') {
    const connection = await mysql.createConnection(db.env.SQL_DSN!);
    return {
      query: async <T>(sql: string) => {
        const [rows] = await connection.query(sql);
        return (Array.isArray(rows) ? rows : []) as T[];
      },
      close: () => connection.end(),
    };
  }
  const client = new pg.Client({ connectionString: db.env.SQL_DSN! });
  await client.connect();
  return {
    query: async <T>(sql: string) => (await client.query(sql)).rows as T[],
    close: () => client.end(),
  };
}
