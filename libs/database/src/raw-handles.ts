import type BetterSqlite3 from 'better-sqlite3';
import type { DataSource } from 'typeorm';

/** The better-sqlite3 connection TypeORM's SQLite driver holds: one per process, shared by every query. */
export type SqliteHandle = BetterSqlite3.Database;

type Callback = (error: Error | null, result: unknown) => void;
/** A pooled connection of the callback-style mysql2 pool. */
export interface MysqlConnection {
  execute(sql: string, values: unknown[], callback: Callback): void;
  query(sql: string, callback: Callback): void;
  release(): void;
}
/** The callback-style mysql2 pool TypeORM's MySQL driver keeps. */
export interface MysqlPool {
  execute(sql: string, values: unknown[], callback: Callback): void;
  getConnection(callback: (error: Error | null, connection: MysqlConnection) => void): void;
}
/** Something that runs a (named, prepared) pg query: the pool itself or one of its clients. */
interface PgQueryable {
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: Record<string, unknown>[] }>;
}
/** A client checked out of the pg pool (for a transaction); released back to it. */
export interface PgClient extends PgQueryable {
  release(destroy?: boolean | Error): void;
}
/** The pg Pool TypeORM's PostgreSQL driver keeps. */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgClient>;
}

/*
 * The only place outside TypeORM that knows where its drivers keep their connections (an architecture
 * test keeps it so): the relay's ledger, the log writer and the metrics go through these functions.
 */
interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
}
interface DriverInternals {
  databaseConnection?: SqliteHandle;
  pool?: MysqlPool & { _allConnections?: unknown[]; _freeConnections?: unknown[]; _connectionQueue?: unknown[] };
  master?: PgPool & { totalCount?: number; idleCount?: number; waitingCount?: number } & {
    on(event: 'acquire', listener: (client: ErrorEmitter) => void): unknown;
  };
}

function internals(dataSource: DataSource): DriverInternals {
  return dataSource.driver as unknown as DriverInternals;
}

/** The raw better-sqlite3 connection, or undefined on another database (or before the data source is open). */
export function sqliteHandleOf(dataSource: DataSource): SqliteHandle | undefined {
  if (dataSource.options.type !== 'better-sqlite3') return undefined;
  return internals(dataSource).databaseConnection;
}

/**
 * The mysql2 pool of a MySQL/MariaDB data source, read at call time (it exists once the data source is
 * initialised, which happens before any request); undefined on another database.
 */
export function mysqlPoolOf(dataSource: DataSource): MysqlPool | undefined {
  if (dataSource.options.type !== 'mysql' && dataSource.options.type !== 'mariadb') return undefined;
  return internals(dataSource).pool;
}

/** The pg pool of a PostgreSQL data source; undefined on another database. */
export function postgresPoolOf(dataSource: DataSource): PgPool | undefined {
  if (dataSource.options.type !== 'postgres') return undefined;
  return internals(dataSource).master;
}

/** A pool's numbers as the drivers expose them (pg's Pool publicly, mysql2's through its internals). */
export function poolUsageOf(dataSource: DataSource): { total: number; idle: number; waiting: number } | undefined {
  const d = internals(dataSource);
  const pg = d.master;
  if (pg && typeof pg.totalCount === 'number') return { total: pg.totalCount, idle: pg.idleCount ?? 0, waiting: pg.waitingCount ?? 0 };
  const mysql = d.pool;
  if (mysql?._allConnections) {
    return { total: mysql._allConnections.length, idle: mysql._freeConnections?.length ?? 0, waiting: mysql._connectionQueue?.length ?? 0 };
  }
  // SQLite: one connection, shared by every query.
  if (d.databaseConnection) return { total: 1, idle: 0, waiting: 0 };
  return undefined;
}

/** Clients that already carry the listener below. */
const guardedPgClients = new WeakSet<object>();

/**
 * pg's pool listens for a client's errors only while the client is idle, and a holder (TypeORM's query
 * runner, the ledger's transactions) attaches its own listener only once its checkout promise resolved. A
 * server that ends the connection in between, or while the holder has none (an administrator's
 * pg_terminate_backend, a failover, an idle-in-transaction timeout), makes the client emit 'error' with no
 * listener, and Node ends the process. So every client gets one when it is checked out, in the pool's
 * synchronous 'acquire' event: the error is reported, the client's next query fails (its caller handles
 * that), and the pool drops the dead client when it is released. A no-op on other databases.
 */
export function reportPostgresClientErrors(dataSource: DataSource, report: (error: Error) => void): void {
  if (dataSource.options.type !== 'postgres') return;
  internals(dataSource).master?.on('acquire', (client) => {
    if (guardedPgClients.has(client)) return;
    guardedPgClients.add(client);
    client.on('error', report);
  });
}
