import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { EntityManager } from 'typeorm';
import { cancelScheduled, scheduleEvery } from '@gw/core';
import { OptionService } from '@gw/option';
import { LogBatcher } from './log-batcher.js';
import { toLogRow } from './log-row.js';
import { LogType, type NewLog } from './log-type.js';
import { QuotaDataService } from './quota-data.service.js';
import { type LogRecord, LogStore } from './store/log-store.js';

/**
 * Small batches: under load a row waits only a few milliseconds, so it more often dies young instead of
 * being promoted to the old generation (held for 200 inserts, rows were a visible share of what a busy
 * gateway promotes), while one transaction per 64 rows still spreads the commit's cost thin.
 */
const BATCH_ROWS = 64;
const BATCH_INTERVAL_MS = 1000;
const MAX_PENDING = 100_000;
/** Before a failed batch is checked and written again (see LogBatcherOptions.retryPauseMs). */
const RETRY_PAUSE_MS = 200;

/**
 * The write side of the logs. `record` keeps the relay's hot path free of database work: rows are
 * buffered and appended to the log store in batches, and a graceful shutdown flushes what is left.
 */
@Injectable()
export class LogService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('LogService');
  private readonly batcher: LogBatcher<LogRecord>;

  constructor(
    private readonly store: LogStore,
    private readonly options: OptionService,
    private readonly quotaData: QuotaDataService,
    private readonly scheduler: SchedulerRegistry,
  ) {
    this.batcher = new LogBatcher({
      write: (rows) => this.store.append(rows),
      maxRows: BATCH_ROWS,
      maxPending: MAX_PENDING,
      onLoss: (count, reason) => this.logger.error(`${count} log row(s) lost: ${reason}`),
      committed: (rows) => this.store.appended(rows),
      refused: (error) => this.store.refuses(error),
      retryPauseMs: RETRY_PAUSE_MS,
    });
  }

  onModuleInit(): void {
    // flush() never throws: a failed write is reported through onLoss.
    scheduleEvery(
      this.scheduler,
      'log-flush',
      BATCH_INTERVAL_MS,
      () => this.batcher.flush(),
      () => undefined,
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    cancelScheduled(this.scheduler, 'log-flush');
    if (!(await this.batcher.flush()))
      this.logger.error(`${this.batcher.size} log row(s) lost: the database did not answer before shutdown`);
  }

  /**
   * Buffered write; never throws. Consume rows are skipped unless LogConsumeEnabled (new-api) and
   * also feed the dashboard aggregates.
   */
  record(entry: NewLog): void {
    try {
      if (!this.accepts(entry)) return;
      const row = toLogRow(entry);
      this.batcher.push(row);
      if (row.type === LogType.Consume) this.quotaData.add(row);
    } catch (error) {
      this.logger.error(`log row dropped: ${(error as Error).message}`);
    }
  }

  /**
   * Immediate insert, inside the caller's transaction when a manager is given (top-up, admin actions) and the
   * logs live on the same database; with LOG_SQL_DSN the row is written on the log database at once.
   */
  async recordNow(entry: NewLog, manager?: EntityManager): Promise<void> {
    if (!this.accepts(entry)) return;
    const row = toLogRow(entry);
    await this.store.append([row], manager);
    if (row.type === LogType.Consume) this.quotaData.add(row);
  }

  /** Whether a request's consume row is written (the ledger's crash recovery writes a missing one, once). */
  hasConsumeLog(requestId: string): Promise<boolean> {
    return this.store.hasConsumeLog(requestId);
  }

  /** Rows waiting for the next batch insert (the metrics' queue depth). */
  get pendingRows(): number {
    return this.batcher.size;
  }

  /** Writes every buffered row. */
  /** Writes the buffered rows now: false when some wait because the database did not answer (see LogBatcher). */
  flush(): Promise<boolean> {
    return this.batcher.flush();
  }

  private accepts(entry: NewLog): boolean {
    return entry.type !== LogType.Consume || this.options.get('LogConsumeEnabled');
  }
}
