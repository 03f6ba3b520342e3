import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, cancelScheduled, scheduleEvery, type AppConfig } from '@gw/core';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { LogStore } from '../store/log-store.js';

const INTERVAL_NAME = 'log-retention';
const EVERY_MS = 60 * 60_000;

/**
 * Automatic log retention (new-api has none; its top complaint): with LogRetentionDays > 0, rows
 * older than that are deleted hourly in batches that never block the gateway (LogStore.purgeBefore), on the
 * master node only; the store's job lease (on the database holding the logs, with or without Redis) keeps
 * two instances sharing the logs from scanning at once.
 */
@Injectable()
export class LogRetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('LogRetention');
  private running?: Promise<number>;

  constructor(
    private readonly logs: LogStore,
    private readonly options: OptionService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.node.isMaster) return;
    scheduleEvery(
      this.scheduler,
      INTERVAL_NAME,
      EVERY_MS,
      () => this.runOnce(),
      (e) => this.logger.warn(`log retention: ${e.message}`),
    );
  }

  onModuleDestroy(): void {
    cancelScheduled(this.scheduler, INTERVAL_NAME);
  }

  /** One pass; returns the rows deleted (0 when retention is off or another instance holds the lock). */
  runOnce(now = nowSeconds()): Promise<number> {
    this.running ??= this.locked(now).finally(() => (this.running = undefined));
    return this.running;
  }

  private async locked(now: number): Promise<number> {
    const days = this.options.get('LogRetentionDays');
    if (!days) return 0;
    return (await this.logs.exclusive(INTERVAL_NAME, () => this.purge(now, days))) ?? 0;
  }

  private async purge(now: number, days: number): Promise<number> {
    const deleted = await this.logs.purgeBefore(now - days * 86_400);
    if (deleted > 0) this.logger.log(`log retention: ${deleted} row(s) older than ${days} day(s) deleted`);
    return deleted;
  }
}
