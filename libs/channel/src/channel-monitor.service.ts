import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, cancelScheduled, scheduleEvery, BusinessError, type AppConfig } from '@gw/core';
import { JobLockService } from '@gw/database';
import { OptionService } from '@gw/option';
import { ChannelStatus } from './channel.entity.js';
import { ChannelRepository } from './channel.repository.js';
import { ChannelStatusService } from './channel-status.service.js';
import { ChannelBalanceService } from './channel-balance.service.js';
import { ChannelHealthService } from './channel-health.service.js';
import { ChannelNotifyService } from './channel-notify.service.js';
import { ChannelTestService, type ChannelTestResult } from './channel-test.service.js';
import { testedKeyIndex } from './multi-key.js';

const INTERVAL_NAME = 'channel-health-check';
const LOCK_NAME = 'channel-health-check';
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
 * minutes on the master node only, under a lock shared by the instances of one database (Redis when
 * configured, else a database lease). A failing channel is re-tested until it passes or its failure
 * window (ChannelDisableFailureCount in ChannelDisableFailureWindowMinutes, shared with relay
 * failures) is full, and only then disabled (status 3) when AutomaticDisableChannelEnabled and its
 * auto_ban allow it; a pass re-enables an auto-disabled channel when AutomaticEnableChannelEnabled.
 */
@Injectable()
export class ChannelMonitorService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ChannelMonitor');
  private running?: Promise<CycleSummary>;
  private lastOptionRun = Date.now();

  constructor(
    private readonly channels: ChannelRepository,
    private readonly tests: ChannelTestService,
    private readonly balances: ChannelBalanceService,
    private readonly status: ChannelStatusService,
    private readonly health: ChannelHealthService,
    private readonly locks: JobLockService,
    private readonly notices: ChannelNotifyService,
    private readonly options: OptionService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.node.isMaster) return;
    const minutes = this.config.jobs.channelTestFrequencyMinutes;
    if (minutes) this.every(INTERVAL_NAME, minutes, () => this.runCycle());
    else this.every(OPTION_TICK_NAME, 1, () => this.optionTick());
    const balanceMinutes = this.config.jobs.channelUpdateFrequencyMinutes;
    if (balanceMinutes) this.every(BALANCE_INTERVAL_NAME, balanceMinutes, () => this.runBalanceCycle());
  }

  onModuleDestroy(): void {
    for (const name of [INTERVAL_NAME, BALANCE_INTERVAL_NAME, OPTION_TICK_NAME]) cancelScheduled(this.scheduler, name);
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
    scheduleEvery(this.scheduler, name, minutes * 60_000, job, (e) => this.logger.warn(`${name}: ${e.message}`));
  }

  /**
   * CHANNEL_UPDATE_FREQUENCY: refreshes the balances of enabled channels; an exhausted balance (≤ 0)
   * disables the channel when auto-disable applies to it (new-api AutomaticallyUpdateChannels).
   */
  async runBalanceCycle(): Promise<{ updated: number; disabled: number; skipped?: boolean }> {
    return (await this.locks.exclusive(BALANCE_INTERVAL_NAME, () => this.balanceCycle())) ?? { updated: 0, disabled: 0, skipped: true };
  }

  private async balanceCycle(): Promise<{ updated: number; disabled: number }> {
    let updated = 0;
    let disabled = 0;
    for (const row of await this.channels.findAllForRouting()) {
      if (row.status !== ChannelStatus.Enabled) continue;
      let balance: number;
      try {
        balance = await this.balances.updateBalance(row);
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
    return this.locks.redisKey(LOCK_NAME);
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** `GET /api/channel/test`: starts a cycle in the background (refused while one runs). */
  startInBackground(): void {
    if (this.running) throw new BusinessError('a channel test is already running');
    void this.runCycle()
      .then((summary) => {
        if (!summary.skipped) this.notices.testsFinished(summary);
      })
      .catch((e: Error) => this.logger.warn(e.message));
  }

  /** One pass over every channel that is not manually disabled. Concurrent calls share one run. */
  runCycle(): Promise<CycleSummary> {
    this.running ??= this.locks
      .exclusive(LOCK_NAME, () => this.cycle())
      .then((summary) => summary ?? { tested: 0, failed: 0, disabled: 0, enabled: 0, skipped: true })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async cycle(): Promise<CycleSummary> {
    const summary: CycleSummary = { tested: 0, failed: 0, disabled: 0, enabled: 0 };
    const rows = await this.channels.findAllForRouting();
    const pause = this.config.jobs.pollingIntervalSeconds * 1000;
    for (const row of rows) {
      if (row.status === ChannelStatus.ManuallyDisabled || !this.tests.canTest(row.type)) continue;
      let result = await this.tests.test(row);
      summary.tested++;
      if (!result.success) {
        summary.failed++;
        if (row.status === ChannelStatus.Enabled && this.health.autoDisableApplies(row.id)) {
          // One failed test is not enough: re-test until the failure window is full or a test passes.
          for (let attempt = 1; ; attempt++) {
            if (await this.health.recordFailure(row.id, toFailure(result), testedKeyIndex(row.key, row.channelInfo))) {
              summary.disabled++;
              break;
            }
            if (attempt >= this.options.get('ChannelDisableFailureCount') || !this.health.isDisablingFailure(toFailure(result))) break;
            result = await this.tests.test(row);
            if (result.success) break;
          }
        }
      }
      if (result.success) {
        this.health.reportRelaySuccess(row.id, testedKeyIndex(row.key, row.channelInfo));
        if (row.status === ChannelStatus.AutoDisabled && this.options.get('AutomaticEnableChannelEnabled')) {
          if (await this.status.autoEnable(row.id)) summary.enabled++;
        }
      }
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    }
    this.logger.log(
      `channel health check: ${summary.tested} tested, ${summary.failed} failed, ${summary.disabled} disabled, ${summary.enabled} enabled`,
    );
    return summary;
  }
}

/** A failed test as a failure report: unreachable, timed out or too slow is always the channel's fault. */
function toFailure(result: ChannelTestResult) {
  const channelError = result.failure === 'connect' || result.failure === 'timeout' || result.failure === 'slow';
  return { status: result.status, message: `health check failed: ${result.message}`, channelError };
}
