import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';

export type TestDbKind = 'sqlite' | 'mysql' | 'postgres';

/** The databases every e2e suite runs on: SQLite always, MariaDB/PostgreSQL when their URLs are set. */
export function testDatabases(): TestDbKind[] {
  const kinds: TestDbKind[] = ['sqlite'];
  if (process.env.TEST_MYSQL_URL) kinds.push('mysql');
  if (process.env.TEST_POSTGRES_URL) kinds.push('postgres');
  return kinds;
}

export interface TestDatabase {
  kind: TestDbKind;
  /** Environment for the gateway: SQL_DSN or SQLITE_PATH. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh, empty database for one suite, so suites run in parallel without seeing each other. */
export async function createTestDatabase(kind: TestDbKind): Promise<TestDatabase> {
  const name = `gw_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gw-e2e-'));
    return {
      kind,
      env: { SQLITE_PATH: join(dir, 'gateway.db'), DATA_DIR: dir },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (kind === 'mysql') {
    const server = new URL(process.env.TEST_MYSQL_URL!);
    const admin = await mysql.createConnection({
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username),
      password: decodeURIComponent(server.password),
    });
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.end();
    const dsn = new URL(server.toString());
    dsn.pathname = `/${name}`;
    return {
      kind,
      env: { SQL_DSN: dsn.toString() },
      drop: async () => {
        const conn = await mysql.createConnection({
          host: server.hostname,
          port: Number(server.port || 3306),
          user: decodeURIComponent(server.username),
          password: decodeURIComponent(server.password),
        });
        await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await conn.end();
      },
    };
  }
  const server = new URL(process.env.TEST_POSTGRES_URL!);
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const dsn = new URL(server.toString());
  dsn.pathname = `/${name}`;
  return {
    kind,
    env: { SQL_DSN: dsn.toString() },
    drop: async () => {
      const conn = new pg.Client({ connectionString: server.toString() });
      await conn.connect();
      await conn.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await conn.end();
    },
  };
}
