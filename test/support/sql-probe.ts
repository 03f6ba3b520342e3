import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { FREE_SLOT } from '@gw/token';
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

export interface Balances {
  userQuota: number;
  userUsed: number;
  tokenRemain: number;
  tokenUsed: number;
}

/** A user's and one of their tokens' balances, as the database holds them. */
export async function balancesOf(probe: SqlProbe, userId: number, tokenId: number): Promise<Balances> {
  const [user] = await probe.query<{ quota: number | string; used_quota: number | string }>(
    `SELECT quota, used_quota FROM users WHERE id = ${userId}`,
  );
  const [token] = await probe.query<{ remain_quota: number | string; used_quota: number | string }>(
    `SELECT remain_quota, used_quota FROM tokens WHERE id = ${tokenId}`,
  );
  return {
    userQuota: Number(user!.quota),
    userUsed: Number(user!.used_quota),
    tokenRemain: Number(token!.remain_quota),
    tokenUsed: Number(token!.used_quota),
  };
}

/** Resolves once no quota reservation is left: a restarted gateway's recovery has finished every one. */
export async function reservationsCleared(probe: SqlProbe, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await probe.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM quota_reservations WHERE charged <> ${FREE_SLOT}`);
    if (Number(row!.n) === 0) return;
    if (Date.now() > deadline) throw new Error('timed out waiting for the recovery of every reservation');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
