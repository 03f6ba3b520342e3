import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, cancelScheduled, scheduleEvery, type AppConfig } from '@gw/core';
import { JobLockService } from '@gw/database';

const INTERVAL_NAME = 'task-polling';
const LOCK_NAME = 'task-polling';
/**
 * A crashed poller's lease frees itself after this (a restart must not wait the default 30 minutes). A
 * pass that runs longer may overlap another instance's: harmless, every settle and refund is guarded.
 */
const LOCK_TTL_MS = 5 * 60_000;
/** A shutdown waits this long for a pass in progress to write its results. */
const DRAIN_MS = 10_000;

/** What one family did in a pass. */
export interface PollSummary {
  /** Rows whose progress or state changed. */
  updated: number;
  succeeded: number;
  failed: number;
  /** Failures whose quota went back (a subset of failed). */
  refunded: number;
  timedOut: number;
}

/** A task family's polling: read its unfinished rows, ask their channels, write back, settle or refund. */
export interface PollingFamily {
  readonly name: string;
  pollOnce(options: { limit: number; timeoutMinutes: number; nowMs: number }): Promise<PollSummary>;
}

export function emptySummary(): PollSummary {
  return { updated: 0, succeeded: 0, failed: 0, refunded: 0, timedOut: 0 };
}

/**
 * The task framework's clock: every TASK_POLL_INTERVAL seconds (15 as new-api), on the master node,
 * under the shared job lock so that only one instance polls at a time. State lives in the database only,
 * so polling simply resumes after a restart. Families register themselves at start-up.
 */
@Injectable()
export class TaskPoller implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('TaskPoller');
  private readonly families: PollingFamily[] = [];
  private running?: Promise<Record<string, PollSummary> | undefined>;

  constructor(
    private readonly locks: JobLockService,
    private readonly scheduler: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  register(family: PollingFamily): void {
    this.families.push(family);
  }

  onApplicationBootstrap(): void {
    if (!this.config.node.isMaster || !this.config.jobs.updateTask) return;
    const ms = this.config.jobs.taskPollIntervalSeconds * 1000;
    scheduleEvery(
      this.scheduler,
      INTERVAL_NAME,
      ms,
      () => this.runOnce(),
      (e) => this.logger.warn(`task polling: ${e.message}`),
    );
  }

  async onModuleDestroy(): Promise<void> {
    cancelScheduled(this.scheduler, INTERVAL_NAME);
    if (!this.running) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.running.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_MS)))]);
    clearTimeout(timer);
  }

  /** One pass over every family; undefined when another instance holds the lock. Never overlaps itself. */
  runOnce(nowMs = Date.now()): Promise<Record<string, PollSummary> | undefined> {
    this.running ??= this.locks.exclusive(LOCK_NAME, () => this.pass(nowMs), LOCK_TTL_MS).finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(nowMs: number): Promise<Record<string, PollSummary>> {
    const out: Record<string, PollSummary> = {};
    const options = { limit: this.config.jobs.taskQueryLimit, timeoutMinutes: this.config.jobs.taskTimeoutMinutes, nowMs };
    for (const family of this.families) {
      try {
        out[family.name] = await family.pollOnce(options);
      } catch (error) {
        this.logger.warn(`${family.name}: ${(error as Error).message}`);
        out[family.name] = emptySummary();
      }
    }
    return out;
  }
}
