import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AppConfig, DatabaseTls } from '@gw/core';
import type { DataSourceOptions } from 'typeorm';

/** TypeORM's own option types (classes, schemas or glob strings), so nothing here restates them. */
type EntityList = NonNullable<DataSourceOptions['entities']>;
type MigrationList = NonNullable<DataSourceOptions['migrations']>;

export interface SchemaParts {
  entities: EntityList;
  migrations: MigrationList;
}

/**
 * TypeORM options for the configured database. Migrations run at boot; `synchronize` is never on.
 * SQLite uses WAL and a busy timeout so that readers never block the writer and a locked database waits
 * instead of failing.
 */
export function dataSourceOptions(database: AppConfig['database'], parts: SchemaParts): DataSourceOptions {
  const common = {
    entities: parts.entities,
    migrations: parts.migrations,
    migrationsRun: false,
    synchronize: false,
    logging: false,
  } as const;
  switch (database.type) {
    case 'sqlite':
      mkdirSync(dirname(database.path!), { recursive: true });
      return {
        ...common,
        type: 'better-sqlite3',
        database: database.path!,
        enableWAL: true,
        timeout: 30_000,
        prepareDatabase: (db: { pragma(sql: string): unknown; prepare(sql: string): unknown }) => {
          db.pragma('busy_timeout = 30000');
          beginImmediate(db);
          db.pragma('synchronous = NORMAL');
          // better-sqlite3 builds SQLite with a 16 MB page cache per connection, which a busy gateway fills with
          // log pages it never reads again (measured: +17 MB resident). The hot rows (users, tokens, the
          // tail of logs) fit in 4 MB; anything colder is one read away in the OS page cache.
          db.pragma('cache_size = -4096');
          db.pragma('foreign_keys = OFF');
          // A batch of writes gives each request its own savepoint, and SQLite keeps what a savepoint may have to
          // undo in a statement journal that spills to an unlinked file in /var/tmp past 64 KiB: under load that
          // was some 10 pwrite calls per request. In memory it is a few pages per batch, freed at its commit.
          db.pragma('temp_store = MEMORY');
          // Lets a log cleanup hand freed pages back a few at a time (PRAGMA incremental_vacuum) instead of one
          // blocking VACUUM. It takes effect only on a new, empty file; an existing file keeps its setting.
          db.pragma('auto_vacuum = INCREMENTAL');
        },
      };
    case 'mysql':
      return {
        ...common,
        type: 'mysql',
        host: database.host,
        port: database.port,
        username: database.username,
        password: database.password,
        database: database.database,
        charset: 'utf8mb4_unicode_ci',
        supportBigNumbers: true,
        bigNumberStrings: false,
        timezone: 'Z',
        poolSize: database.poolSize,
        ssl: sslOptions(database.tls),
        extra: { connectionLimit: database.poolSize, enableKeepAlive: true },
      };
    case 'postgres':
      return {
        ...common,
        type: 'postgres',
        host: database.host,
        port: database.port,
        username: database.username,
        password: database.password,
        database: database.database,
        poolSize: database.poolSize,
        ssl: sslOptions(database.tls),
        // new-api's Go `int` columns are BIGINT on PostgreSQL: read them as numbers, as on the other databases.
        parseInt8: true,
      };
  }
}

/** The DSN's TLS mode (sslmode / tls) as Node TLS options for mysql2 and pg; undefined = plain TCP. */
export function sslOptions(
  tls: DatabaseTls | undefined,
): { rejectUnauthorized: boolean; checkServerIdentity?: () => undefined; ca?: string } | undefined {
  if (!tls) return undefined;
  return {
    rejectUnauthorized: tls.verifyCertificate,
    // verify-ca: the chain is checked, the host name is not.
    ...(tls.verifyCertificate && !tls.verifyHostname ? { checkServerIdentity: () => undefined } : {}),
    ...(tls.caFile ? { ca: readFileSync(tls.caFile, 'utf8') } : {}),
  };
}

/**
 * TypeORM opens every SQLite transaction with a deferred `BEGIN TRANSACTION`. With a second process on the file
 * (WORKERS=2, or two instances), a transaction that reads, awaits, then writes fails at once with
 * SQLITE_BUSY_SNAPSHOT when the other process committed in between: the busy timeout does not cover it. Taking
 * the write lock at BEGIN makes the other process wait its busy timeout instead. In one process nothing changes:
 * its single connection runs one transaction at a time anyway (serializeSqliteTransactions).
 */
function beginImmediate(db: { prepare(sql: string): unknown }): void {
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => prepare(sql === 'BEGIN TRANSACTION' ? 'BEGIN IMMEDIATE' : sql);
}
