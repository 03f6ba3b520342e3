import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { cancelScheduled, scheduleEvery } from '@gw/core';
import { BatchSizer, yieldToEventLoop } from '../retention/batch-sizer.js';
import { sumIntoBuckets } from './hourly-buckets.js';
import { LogDailyRepository } from './log-daily.repository.js';
import { toDailyBuckets } from './log-daily.js';
import { LogHourlyRepository } from './log-hourly.repository.js';
import { SeriesTextRepository } from './series-text.repository.js';

const TICK_MS = 5000;
/** Log ids read per step: sized so that one step blocks SQLite's synchronous driver for about 20 ms. */
const TARGET_STEP_MS = 20;
const MIN_STEP_IDS = 500;
const MAX_STEP_IDS = 50_000;
/** Past this many ids behind, a catch-up counts as a backfill. */
const BULK_IDS = 20_000;

/**
 * Keeps `log_hourly` (and the dashboard's `log_daily`, and the validity of its stored hour texts) summing every consume log up to a cursor. The same loop is the backfill: at start the
 * cursor of a database upgraded from new-api (or bulk-loaded) is far behind, and the gateway catches up in
 * the background, step by step with a turn of the event loop between steps, resuming from the cursor after
 * a restart. Every instance may run it: the cursor moves by compare-and-set in the same transaction as the
 * sums, so each log is counted once.
 *
 * On MySQL/PostgreSQL an id is visible only when its insert commits, and inserts commit out of order: a
 * tick aggregates only up to the highest id seen one tick earlier, by when any insert that had taken a lower
 * id has long committed (log inserts are short). SQLite has one writer, so every id below the highest
 * visible one is already committed.
 */
@Injectable()
export class LogAggregatorService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('LogAggregator');
  private running?: Promise<void>;
  private previousMax = 0;
  private stopping = false;
  private readonly sqlite: boolean;

  constructor(
    private readonly repo: LogHourlyRepository,
    private readonly daily: LogDailyRepository,
    private readonly texts: SeriesTextRepository,
    private readonly scheduler: SchedulerRegistry,
  ) {
    this.sqlite = repo.isSqlite;
  }

  onApplicationBootstrap(): void {
    // tick() catches and reports its own failures.
    scheduleEvery(
      this.scheduler,
      'log-aggregation',
      TICK_MS,
      () => this.tick(),
      () => undefined,
    );
    void this.tick();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    cancelScheduled(this.scheduler, 'log-aggregation');
    await this.running;
  }

  /**
   * Aggregates every log up to `target` (default: the highest id now), waiting for a run in progress first.
   * For tests and the benchmark, which know that every insert has committed.
   */
  async aggregateUpTo(target?: number): Promise<void> {
    await this.running;
    const upTo = target ?? (await this.repo.maxLogId());
    await this.run(upTo);
  }

  /** One periodic pass: aggregates up to the highest id seen a tick ago (SQLite: the highest now). */
  async tick(): Promise<void> {
    if (this.running || this.stopping) return;
    try {
      const highest = await this.repo.maxLogId();
      const settled = this.sqlite ? highest : this.previousMax;
      this.previousMax = highest;
      await this.run(settled);
    } catch (error) {
      this.logger.warn(`log aggregation: ${(error as Error).message}`);
    }
  }

  private run(target: number): Promise<void> {
    const run = this.catchUpFast(target).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  /** A long catch-up (a backfill) runs with a larger SQLite page cache; a tick's few ids do not need it. */
  private async catchUpFast(target: number): Promise<void> {
    const behind = target - (await this.repo.coveredUpTo());
    if (behind > BULK_IDS) await this.repo.withLargeSqliteCache(() => this.catchUp(target));
    else await this.catchUp(target);
  }

  private async catchUp(target: number): Promise<void> {
    const sizer = new BatchSizer(TARGET_STEP_MS, MIN_STEP_IDS, MAX_STEP_IDS);
    let from = await this.repo.coveredUpTo();
    const behind = target - from;
    while (from < target && !this.stopping) {
      const started = performance.now();
      const to = Math.min(target, from + sizer.current);
      const buckets = sumIntoBuckets(await this.repo.consumeRows(from, to));
      const days = toDailyBuckets(buckets);
      // Lost to another instance: it moved the cursor; continue from where it is now.
      // The dashboard's stored texts of the hours these logs add into are dropped in the same transaction.
      const committed = await this.repo.commit(from, to, buckets, async (runner) => {
        await this.texts.invalidate(runner, buckets);
        await this.daily.add(runner, days);
      });
      from = committed ? to : await this.repo.coveredUpTo();
      sizer.record(performance.now() - started);
      await yieldToEventLoop();
    }
    if (behind > 100_000) this.logger.log(`hourly log sums caught up over ${behind} log ids`);
  }
}
