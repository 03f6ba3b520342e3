import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { BusinessError, cancelScheduled, type JsonText, type Principal, scheduleEvery } from '@gw/core';
import type { QuotaDataQuery } from '@gw/contracts';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { QuotaDataRepository, type QuotaBucket, type QuotaDataView } from './quota-data.repository.js';
import { type LogRecord, LogStore } from './store/log-store.js';

const HOUR = 3600;
/** new-api refuses self ranges over one month. */
const MAX_SELF_SPAN = 30 * 86_400;
const TICK_MS = 60_000;

/**
 * Dashboard aggregates (new-api UpdateQuotaData): consume rows add into in-memory hour buckets;
 * every DataExportInterval minutes (and at shutdown) the buckets are added into `quota_data`.
 * Every instance keeps and writes its own buckets; the increment makes their sums add up.
 */
@Injectable()
export class QuotaDataService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('QuotaData');
  private buckets = new Map<string, QuotaBucket>();
  private lastSave = Date.now();
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: QuotaDataRepository,
    private readonly options: OptionService,
    /** The usage series over every user come from the log store (its hourly sums). */
    private readonly logs: LogStore,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onModuleInit(): void {
    scheduleEvery(
      this.scheduler,
      'quota-data-export',
      TICK_MS,
      () => this.tick(),
      (e) => this.logger.warn(`quota data: ${e.message}`),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    cancelScheduled(this.scheduler, 'quota-data-export');
    await this.save();
  }

  /** Counts one consume row (a no-op while DataExportEnabled is off). */
  add(row: LogRecord): void {
    if (!this.options.get('DataExportEnabled')) return;
    const at = row.createdAt ?? nowSeconds();
    const createdAt = at - (at % HOUR);
    const bucket: QuotaBucket = {
      userId: row.userId ?? 0,
      username: (row.username ?? '').slice(0, 64),
      modelName: row.modelName ?? '',
      createdAt,
      count: 1,
      quota: row.quota ?? 0,
      tokenUsed: (row.promptTokens ?? 0) + (row.completionTokens ?? 0),
    };
    this.merge(bucket);
  }

  /** Writes the buckets gathered so far; a bucket that fails is kept for the next save. */
  save(): Promise<void> {
    this.saving = this.saving.then(async () => {
      const pending = [...this.buckets.values()];
      this.buckets = new Map();
      for (const bucket of pending) {
        try {
          await this.repo.add(bucket);
        } catch (error) {
          this.merge(bucket);
          this.logger.warn(`quota_data save: ${(error as Error).message}`);
        }
      }
    });
    return this.saving;
  }

  async listAll(query: QuotaDataQuery): Promise<QuotaDataView[] | JsonText> {
    const [start, end] = range(query);
    await this.saveBeforeRead();
    if (query.username) return this.repo.forUser({ username: query.username }, start, end);
    return this.options.get('DataExportEnabled')
      ? this.logs.usageSeries('model', start, end, perDay(query))
      : this.repo.overview(start, end);
  }

  /**
   * The overviews over every user come from the hourly log sums (a week is a few thousand rows whatever the
   * volume); while DataExportEnabled is off they show quota_data, which then gathers nothing, as new-api does.
   */
  async listByUser(query: QuotaDataQuery): Promise<QuotaDataView[] | JsonText> {
    const [start, end] = range(query);
    await this.saveBeforeRead();
    return this.options.get('DataExportEnabled')
      ? this.logs.usageSeries('username', start, end, perDay(query))
      : this.repo.byUser(start, end);
  }

  async listOwn(principal: Principal, query: QuotaDataQuery): Promise<QuotaDataView[]> {
    const [start, end] = range(query);
    if (end - start > MAX_SELF_SPAN) throw new BusinessError('the time span must not exceed one month', 'invalid_input');
    await this.saveBeforeRead();
    return this.repo.forUser({ userId: principal.id }, start, end);
  }

  /**
   * A user who just made calls expects the dashboard to show them, not the state of up to
   * DataExportInterval minutes ago: a read first writes this instance's pending buckets (only the
   * ones gathered since the last save, so a busy dashboard costs no more writes than calls made).
   */
  private async saveBeforeRead(): Promise<void> {
    if (this.buckets.size > 0) await this.save();
  }

  private async tick(now = Date.now()): Promise<void> {
    if (!this.options.get('DataExportEnabled')) return;
    if (now - this.lastSave < this.options.get('DataExportInterval') * 60_000) return;
    this.lastSave = now;
    await this.save();
  }

  private merge(bucket: QuotaBucket): void {
    const key = `${bucket.userId}\u0000${bucket.username}\u0000${bucket.modelName}\u0000${bucket.createdAt}`;
    const existing = this.buckets.get(key);
    if (!existing) {
      this.buckets.set(key, { ...bucket });
      return;
    }
    existing.count += bucket.count;
    existing.quota += bucket.quota;
    existing.tokenUsed += bucket.tokenUsed;
  }
}

/** A console charting per day or week needs no hourly rows inside whole days (new-api's `default_time`). */
function perDay(query: QuotaDataQuery): boolean {
  return query.default_time === 'day' || query.default_time === 'week';
}

function range(query: QuotaDataQuery): [number, number] {
  if (query.start_timestamp === undefined) throw new BusinessError('start_timestamp is required', 'invalid_input');
  if (query.end_timestamp === undefined) throw new BusinessError('end_timestamp is required', 'invalid_input');
  if (query.start_timestamp > query.end_timestamp)
    throw new BusinessError('start_timestamp must not be after end_timestamp', 'invalid_input');
  return [query.start_timestamp, query.end_timestamp];
}
