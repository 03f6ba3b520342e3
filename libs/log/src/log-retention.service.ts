import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, RedisService, type AppConfig } from '@gw/core';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { LogRepository } from './log.repository.js';

const INTERVAL_NAME = 'log-retention';
const EVERY_MS = 60 * 60_000;
const LOCK_TTL_MS = 30 * 60_000;

/**
 * Automatic log retention (new-api has none; its top complaint): with LogRetentionDays > 0, rows
 * older than that are deleted hourly in batches, on the master node only. With Redis, a lock keeps
 * two masters from scanning at once; without it a second run is harmless (deletes are idempotent).
 */
@Injectable()
export class LogRetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('LogRetention');
  private running?: Promise<number>;

  constructor(
    private readonly logs: LogRepository,
    private readonly options: OptionService,
    private readonly redis: RedisService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.node.isMaster) return;
    const timer = setInterval(() => void this.runOnce().catch((e: Error) => this.logger.warn(`log retention: ${e.message}`)), EVERY_MS);
    timer.unref();
    this.scheduler.addInterval(INTERVAL_NAME, timer);
  }

  onModuleDestroy(): void {
    if (this.scheduler.doesExist('interval', INTERVAL_NAME)) this.scheduler.deleteInterval(INTERVAL_NAME);
  }

  /** One pass; returns the rows deleted (0 when retention is off or another instance holds the lock). */
  runOnce(now = nowSeconds()): Promise<number> {
    this.running ??= this.locked(now).finally(() => (this.running = undefined));
    return this.running;
  }

  private async locked(now: number): Promise<number> {
    const days = this.options.get('LogRetentionDays');
    if (!days) return 0;
    const client = this.redis.ready;
    if (!client) return this.purge(now, days);
    const key = this.redis.key('lock:log-retention');
    const token = randomUUID();
    if ((await client.set(key, token, 'PX', LOCK_TTL_MS, 'NX').catch(() => null)) !== 'OK') return 0;
    try {
      return await this.purge(now, days);
    } finally {
      await client
        .eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, key, token)
        .catch(() => undefined);
    }
  }

  private async purge(now: number, days: number): Promise<number> {
    const deleted = await this.logs.deleteBefore(now - days * 86_400);
    if (deleted > 0) this.logger.log(`log retention: ${deleted} row(s) older than ${days} day(s) deleted`);
    return deleted;
  }
}
