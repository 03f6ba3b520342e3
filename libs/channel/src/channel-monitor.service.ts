import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { createHash, randomUUID } from 'node:crypto';
import { APP_CONFIG, BusinessError, RedisService, type AppConfig } from '@gw/core';
import { OptionService } from '@gw/option';
import { isOpenAiCompatible } from '@gw/upstream';
import { ChannelStatus } from './channel.entity.js';
import { ChannelRepository } from './channel.repository.js';
import { ChannelStatusService } from './channel-status.service.js';
import { ChannelTestService } from './channel-test.service.js';

const INTERVAL_NAME = 'channel-health-check';
const BALANCE_INTERVAL_NAME = 'channel-balance-update';
/** Without CHANNEL_TEST_FREQUENCY, the console options decide; they are checked once a minute. */
const OPTION_TICK_NAME = 'channel-health-check-option';

export interface CycleSummary {
  tested: number;
  failed: number;
  disabled: number;
  enabled: number;
  /** True when another run (here or on another instance) held the lock. */
  skipped?: boolean;
}

/**
 * Scheduled channel health checks (new-api AutomaticallyTestChannels): every CHANNEL_TEST_FREQUENCY
 * minutes on the master node only, under a Redis lock when Redis is configured. A failure disables
 * (status 3) when AutomaticDisableChannelEnabled and the channel's auto_ban allow it; a pass
 * re-enables an auto-disabled channel when AutomaticEnableChannelEnabled.
 */
@Injectable()
export class ChannelMonitorService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ChannelMonitor');
  private running?: Promise<CycleSummary>;
  private lastOptionRun = Date.now();
  /** One lock per database: the instances that share a database share the job. */
  private readonly lockKey: string;

  constructor(
    private readonly channels: ChannelRepository,
    private readonly tests: ChannelTestService,
    private readonly status: ChannelStatusService,
    private readonly options: OptionService,
    private readonly redis: RedisService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const db = config.database;
    const identity = db.type === 'sqlite' ? db.path : `${db.host}:${db.port}/${db.database}`;
    this.lockKey = redis.key(`lock:channel-test:${createHash('sha256').update(`${db.type}:${identity}`).digest('hex').slice(0, 16)}`);
  }

  onApplicationBootstrap(): void {
    if (!this.config.node.isMaster) return;
    const minutes = this.config.jobs.channelTestFrequencyMinutes;
    if (minutes) this.every(INTERVAL_NAME, minutes, () => this.runCycle());
    else this.every(OPTION_TICK_NAME, 1, () => this.optionTick());
    const balanceMinutes = this.config.jobs.channelUpdateFrequencyMinutes;
    if (balanceMinutes) this.every(BALANCE_INTERVAL_NAME, balanceMinutes, () => this.runBalanceCycle());
  }

  onModuleDestroy(): void {
    for (const name of [INTERVAL_NAME, BALANCE_INTERVAL_NAME, OPTION_TICK_NAME]) {
      if (this.scheduler.doesExist('interval', name)) this.scheduler.deleteInterval(name);
    }
  }

  /**
   * The console's monitor_setting.auto_test_channel_enabled / _minutes (new-api): runs a cycle when
   * enabled and the period has passed. Returns whether it ran.
   */
  async optionTick(now = Date.now()): Promise<boolean> {
    if (!this.options.get('monitor_setting.auto_test_channel_enabled')) return false;
    if (now - this.lastOptionRun < this.options.get('monitor_setting.auto_test_channel_minutes') * 60_000) return false;
    this.lastOptionRun = now;
    await this.runCycle();
    return true;
  }

  private every(name: string, minutes: number, job: () => Promise<unknown>): void {
    const timer = setInterval(() => void job().catch((e: Error) => this.logger.warn(`${name}: ${e.message}`)), minutes * 60_000);
    timer.unref();
    this.scheduler.addInterval(name, timer);
  }

  /**
   * CHANNEL_UPDATE_FREQUENCY: refreshes the balances of enabled channels; an exhausted balance (≤ 0)
   * disables the channel when auto-disable applies to it (new-api AutomaticallyUpdateChannels).
   */
  async runBalanceCycle(): Promise<{ updated: number; disabled: number }> {
    let updated = 0;
    let disabled = 0;
    for (const row of await this.channels.findAllForRouting()) {
      if (row.status !== ChannelStatus.Enabled) continue;
      let balance: number;
      try {
        balance = await this.tests.updateBalance(row);
      } catch {
        continue;
      }
      updated++;
      if (balance <= 0 && this.options.get('AutomaticDisableChannelEnabled') && row.autoBan === 1) {
        if (await this.status.autoDisable(row.id, `balance exhausted (${balance})`)) disabled++;
      }
    }
    return { updated, disabled };
  }

  /** The Redis key of the cross-instance lock (exposed for tests and operators). */
  get lockName(): string {
    return this.lockKey;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** `GET /api/channel/test`: starts a cycle in the background (refused while one runs). */
  startInBackground(): void {
    if (this.running) throw new BusinessError('a channel test is already running');
    void this.runCycle().catch((e: Error) => this.logger.warn(e.message));
  }

  /** One pass over every channel that is not manually disabled. Concurrent calls share one run. */
  runCycle(): Promise<CycleSummary> {
    this.running ??= this.locked().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async locked(): Promise<CycleSummary> {
    const client = this.redis.client;
    if (!client) return this.cycle();
    const token = randomUUID();
    const acquired = await client.set(this.lockKey, token, 'PX', 30 * 60_000, 'NX').catch(() => null);
    if (acquired !== 'OK') return { tested: 0, failed: 0, disabled: 0, enabled: 0, skipped: true };
    try {
      return await this.cycle();
    } finally {
      // Release only our own lock.
      await client
        .eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, this.lockKey, token)
        .catch(() => undefined);
    }
  }

  private async cycle(): Promise<CycleSummary> {
    const summary: CycleSummary = { tested: 0, failed: 0, disabled: 0, enabled: 0 };
    const rows = await this.channels.findAllForRouting();
    const pause = this.config.jobs.pollingIntervalSeconds * 1000;
    for (const row of rows) {
      if (row.status === ChannelStatus.ManuallyDisabled || !isOpenAiCompatible(row.type)) continue;
      const result = await this.tests.test(row);
      summary.tested++;
      if (!result.success) {
        summary.failed++;
        const autoDisable = this.options.get('AutomaticDisableChannelEnabled') && row.autoBan === 1;
        if (autoDisable && row.status === ChannelStatus.Enabled && this.tests.isDisablingFailure(result)) {
          if (await this.status.autoDisable(row.id, `health check failed: ${result.message}`)) summary.disabled++;
        }
      } else if (row.status === ChannelStatus.AutoDisabled && this.options.get('AutomaticEnableChannelEnabled')) {
        if (await this.status.autoEnable(row.id)) summary.enabled++;
      }
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    }
    this.logger.log(`channel health check: ${summary.tested} tested, ${summary.failed} failed, ${summary.disabled} disabled, ${summary.enabled} enabled`);
    return summary;
  }
}
