import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, cancelScheduled, scheduleEvery, type AppConfig } from '@gw/core';
import { ChannelRepository } from './channel.repository.js';

/**
 * Channel used_quota increments from the relay, summed in memory and written in batches (one UPDATE
 * per channel per interval), and flushed on shutdown.
 */
@Injectable()
export class ChannelUsageService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('ChannelUsage');
  private pending = new Map<number, number>();
  private flushing?: Promise<void>;

  constructor(
    private readonly channels: ChannelRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onModuleInit(): void {
    const ms = this.config.jobs.batchUpdateIntervalSeconds * 1000;
    scheduleEvery(
      this.scheduler,
      'channel-used-quota',
      ms,
      () => this.flush(),
      (e) => this.logger.warn(`used quota: ${e.message}`),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    cancelScheduled(this.scheduler, 'channel-used-quota');
    await this.flush();
  }

  addUsedQuota(channelId: number, quota: number): void {
    if (!Number.isFinite(quota) || quota === 0 || !Number.isInteger(channelId)) return;
    this.pending.set(channelId, (this.pending.get(channelId) ?? 0) + Math.trunc(quota));
  }

  /** Writes what has accumulated; a failed write puts its amount back for the next flush. */
  async flush(): Promise<void> {
    if (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = (async () => {
      for (const [id, quota] of batch) {
        try {
          await this.channels.addUsedQuota(id, quota);
        } catch (error) {
          this.pending.set(id, (this.pending.get(id) ?? 0) + quota);
          this.logger.warn(`used_quota of channel ${id}: ${(error as Error).message}`);
        }
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }
}
