import type { Pool, PoolConnection } from 'mysql2';
import type { DataSource } from 'typeorm';
import type { MysqlDataSourceOptions } from 'typeorm/driver/mysql/MysqlDataSourceOptions.js';
import { requireOnFirstUse } from '@gw/core';
import { OneTripError } from './group-commit.js';

/** Loaded by the first one-trip batch, which only a MySQL/MariaDB gateway runs. */
const mysql2 = requireOnFirstUse<typeof import('mysql2')>('mysql2');

/**
 * The trip's transaction reads in READ COMMITTED (this transaction only). Its statements are UPDATEs, which
 * lock and check the latest committed rows in any isolation level, so no condition changes; but under
 * REPEATABLE READ an UPDATE whose `request_id IN (…)` the optimizer answers by scanning the (small) table
 * keeps a next-key lock on every row it looked at, and a trip holding dozens of those deadlocked with the
 * cleanup DELETE and the slot refills (measured in the bench: a settle failed after its retries). In READ
 * COMMITTED the rows that do not match are unlocked at once and no gaps are locked. (A server that refuses
 * it — binlog_format=STATEMENT — fails the trip, and the batch goes statement by statement.)
 */
const READ_COMMITTED = 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED';

/**
 * A small pool of its own, with multi-statement text on, for the group commit's one-trip batches: the
 * TypeORM pool keeps multipleStatements off, so no other query of the gateway can carry a second statement.
 * The group commit runs one batch at a time, so one connection is all it uses (every gateway process holds
 * it on top of TypeORM's pool: keep the server's max_connections in mind when running many processes).
 */
export class MysqlOneTrip {
  private pool?: Pool;
  private closed = false;
  /** Trips under way: close() lets them finish (ending the pool under one would make its outcome unknown). */
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly dataSource: DataSource) {}

  /**
   * `START TRANSACTION; …statements…; COMMIT` (READ COMMITTED) in one round trip; the statements' results in order. A
   * server error (the server stops at the failing statement, so the COMMIT never ran) is rolled back and
   * thrown as OneTripError 'no'; a lost connection as 'unknown'. undefined once closed.
   */
  run(statements: string[]): Promise<unknown[] | undefined> {
    const trip = this.trip(statements);
    this.running.add(trip);
    void trip.catch(() => undefined).finally(() => this.running.delete(trip));
    return trip;
  }

  private async trip(statements: string[]): Promise<unknown[] | undefined> {
    const pool = this.openPool();
    if (!pool) return undefined;
    let connection: PoolConnection;
    try {
      connection = await new Promise<PoolConnection>((resolve, reject) => pool.getConnection((e, c) => (e ? reject(e) : resolve(c))));
    } catch (error) {
      // Nothing was sent.
      throw new OneTripError(error, 'no');
    }
    try {
      const results = await query(connection, `${READ_COMMITTED};\nSTART TRANSACTION;\n${statements.join(';\n')};\nCOMMIT`);
      connection.release();
      return (results as unknown[]).slice(2, 2 + statements.length);
    } catch (error) {
      if ((error as { fatal?: boolean }).fatal) {
        connection.destroy();
        throw new OneTripError(error, 'unknown');
      }
      try {
        await query(connection, 'ROLLBACK');
        connection.release();
      } catch {
        // The server rolls back a transaction whose connection goes away.
        connection.destroy();
      }
      throw new OneTripError(error, 'no');
    }
  }

  /** Closes the pool (a graceful shutdown); later batches go statement by statement on TypeORM's pool. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.running]);
    const pool = this.pool;
    this.pool = undefined;
    if (pool) await new Promise<void>((resolve) => pool.end(() => resolve()));
  }

  private openPool(): Pool | undefined {
    if (this.closed) return undefined;
    if (!this.pool) {
      const options = this.dataSource.options as MysqlDataSourceOptions;
      this.pool = mysql2().createPool({
        host: options.host,
        port: options.port,
        user: options.username,
        password: options.password,
        database: options.database,
        socketPath: options.socketPath,
        ssl: options.ssl as never,
        charset: options.charset,
        timezone: options.timezone,
        supportBigNumbers: options.supportBigNumbers,
        bigNumberStrings: options.bigNumberStrings,
        enableKeepAlive: true,
        multipleStatements: true,
        connectionLimit: 1,
      });
    }
    return this.pool;
  }
}

function query(connection: PoolConnection, sql: string): Promise<unknown> {
  return new Promise((resolve, reject) => connection.query(sql, (error, result) => (error ? reject(error) : resolve(result))));
}
