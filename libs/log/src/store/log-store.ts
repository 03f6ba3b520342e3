import type { EntityManager } from 'typeorm';
import type { JsonText } from '@gw/core';
import type { LogFilter } from '../log-filter.js';
import type { LogEntity } from '../log.entity.js';
import type { QuotaDataView } from '../quota-data.repository.js';

/** A log row as written: the entity's columns, id and defaults left to the store. */
export type LogRecord = Partial<LogEntity>;

/** One page of a log list. */
export interface LogList {
  rows: LogEntity[];
  total: number;
  /** The real total is larger than `total`. */
  capped: boolean;
}

/** new-api's log stat: consume quota of a filter, requests and tokens of its last minute. */
export interface LogStat {
  quota: number;
  rpm: number;
  tpm: number;
}

/** What the dashboard's usage series is summed by: per model and hour, or per username and hour. */
export type UsageDimension = 'model' | 'username';

/**
 * Where the logs live, and the only way in: the relay's writer (LogService), the log pages and their stats, the
 * dashboard's usage series, and retention all go through it, so the logs can sit on their own database
 * (LOG_SQL_DSN) or, later, in an analytics engine, by providing another implementation of this class. Names of
 * users, tokens and channels are never joined in here: the callers look them up on the main database.
 *
 * The SQL implementation (SqlLogStore) works on SQLite, MySQL and PostgreSQL.
 */
export abstract class LogStore {
  /**
   * Writes rows now. `transaction` is a caller's transaction on the main database: the rows go through it
   * (and roll back with it) when the logs live there; a separate log store writes them on its own, as
   * new-api's LOG_DB does.
   */
  abstract append(rows: LogRecord[], transaction?: EntityManager): Promise<void>;

  /**
   * Whether an append of these rows that failed anyway committed (the connection dropped after the server
   * took the insert): an append is atomic, so one row that carries a request id tells for all. false when
   * none carries one (such a retry may write those rows twice). Throws when the database does not answer.
   */
  abstract appended(rows: LogRecord[]): Promise<boolean>;

  /** Whether an append failed because the store refused the rows themselves (sent again, they fail again). */
  abstract refuses(error: unknown): boolean;

  /** Whether a consume row carries this request id (the ledger's crash recovery writes a missing one, once). */
  abstract hasConsumeLog(requestId: string): Promise<boolean>;

  /**
   * Newest first (created_at, then id), `offset` rows skipped unless the filter carries a keyset cursor
   * (`after`); the total is counted up to a cap (`capped` says the real one is larger) unless `withTotal` is false.
   */
  abstract list(filter: LogFilter, offset: number, limit: number, withTotal?: boolean): Promise<LogList>;

  /** new-api's `/api/log/stat`: the consume quota of the filter, rpm and tpm over the last 60 s before `now`. */
  abstract stat(filter: LogFilter, now: number): Promise<LogStat>;

  /** The dashboard's usage per hour (per UTC day with `perDay`) in [start, end] (new-api's quota_data row shape), summed by `dim`. */
  abstract usageSeries(dim: UsageDimension, start: number, end: number, perDay?: boolean): Promise<QuotaDataView[] | JsonText>;

  /** Deletes every row created before `before` without blocking the gateway; returns how many. */
  abstract purgeBefore(before: number): Promise<number>;

  /**
   * Runs a job on the logs (retention) on one instance at a time among those sharing this store; undefined
   * when another instance runs it. The lease lives with the logs, not with the main database.
   */
  abstract exclusive<T>(job: string, work: () => Promise<T>): Promise<T | undefined>;
}
