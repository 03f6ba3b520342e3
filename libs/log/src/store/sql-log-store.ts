import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { isRefusedStatement, JobLockService, LOG_DATA_SOURCE, LOG_JOB_LOCKS } from '@gw/database';
import type { JsonText } from '@gw/core';
import { HourlyDashboardService } from '../aggregate/hourly-dashboard.service.js';
import { LogStatService } from '../aggregate/log-stat.service.js';
import type { LogFilter } from '../log-filter.js';
import { LogInserter } from '../log-insert.js';
import { LogEntity } from '../log.entity.js';
import { LogRepository } from '../log.repository.js';
import { LogType } from '../log-type.js';
import type { QuotaDataView } from '../quota-data.repository.js';
import { LogPurgeService } from '../retention/log-purge.service.js';
import { type LogList, type LogRecord, type LogStat, LogStore, type UsageDimension } from './log-store.js';

/**
 * The log store on SQLite, MySQL or PostgreSQL, on the log data source (LOG_SQL_DSN's database, else the main
 * one): batched plain-SQL inserts, indexed lists with capped totals and keyset paging, stats and the dashboard
 * from the hourly sums (`log_hourly`, kept by LogAggregatorService) plus the logs they do not cover yet, and
 * the batched cleanup.
 */
@Injectable()
export class SqlLogStore extends LogStore {
  private readonly inserter: LogInserter;

  constructor(
    @Inject(LOG_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(LOG_JOB_LOCKS) private readonly locks: JobLockService,
    private readonly logs: LogRepository,
    private readonly stats: LogStatService,
    private readonly dashboard: HourlyDashboardService,
    private readonly purger: LogPurgeService,
  ) {
    super();
    this.inserter = new LogInserter(dataSource);
  }

  append(rows: LogRecord[], transaction?: EntityManager): Promise<void> {
    // A transaction of another database (the main one, with LOG_SQL_DSN set) cannot carry these rows.
    const manager = transaction?.connection === this.dataSource ? transaction : this.dataSource.manager;
    // A manager with its own query runner is a caller's transaction: the rows must go through it.
    return this.inserter.insert(manager, rows, !manager.queryRunner);
  }

  async appended(rows: LogRecord[]): Promise<boolean> {
    const marked = rows.find((row) => row.requestId);
    if (!marked) {
      // Nothing tells; still asked, so that a database that does not answer throws (the rows then wait).
      await this.dataSource.query('SELECT 1');
      return false;
    }
    const params: Record<string, unknown> = { r: marked.requestId, t: marked.type };
    let where = 'request_id = :r AND type = :t';
    if (marked.createdAt !== undefined) {
      where += ' AND created_at = :c';
      params.c = marked.createdAt;
    }
    // On MySQL/MariaDB a locking read waits for an insert still in flight on a dropped connection's thread
    // (the row is there, uncommitted) instead of missing it.
    const lock = this.dataSource.options.type === 'mysql' || this.dataSource.options.type === 'mariadb' ? ' LOCK IN SHARE MODE' : '';
    const [sql, values] = this.dataSource.driver.escapeQueryWithParameters(
      `SELECT 1 AS found FROM logs WHERE ${where} LIMIT 1${lock}`,
      params,
    );
    return ((await this.dataSource.query(sql, values)) as unknown[]).length > 0;
  }

  refuses(error: unknown): boolean {
    return isRefusedStatement(error);
  }

  async hasConsumeLog(requestId: string): Promise<boolean> {
    const rows = this.dataSource.getRepository(LogEntity);
    return (await rows.count({ where: { requestId, type: LogType.Consume }, take: 1 })) > 0;
  }

  list(filter: LogFilter, offset: number, limit: number, withTotal = true): Promise<LogList> {
    return this.logs.list(filter, offset, limit, withTotal);
  }

  stat(filter: LogFilter, now: number): Promise<LogStat> {
    return this.stats.stat(filter, now);
  }

  usageSeries(dim: UsageDimension, start: number, end: number, perDay = false): Promise<QuotaDataView[] | JsonText> {
    return dim === 'model' ? this.dashboard.byModel(start, end, perDay) : this.dashboard.byUsername(start, end, perDay);
  }

  purgeBefore(before: number): Promise<number> {
    return this.purger.purgeBefore(before);
  }

  exclusive<T>(job: string, work: () => Promise<T>): Promise<T | undefined> {
    return this.locks.exclusive(job, work);
  }
}
