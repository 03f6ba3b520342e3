import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { cancelScheduled, scheduleEvery } from '@gw/core';
import { nowSeconds } from '@gw/database';
import { yieldToEventLoop } from '../retention/batch-sizer.js';
import { HOUR } from './hourly-buckets.js';
import { DAY } from './log-daily.js';
import { LogHourlyRepository } from './log-hourly.repository.js';
import { SeriesTextRepository, type TextDim } from './series-text.repository.js';

const WARM_EVERY_MS = 60_000;
/**
 * How far back each dimension's hours are kept rendered: the ranges the console asks per hour. A per-user
 * answer beyond a week is given per day at 2,000 users (MAX_HOURLY_ROWS), so its older hours are not read.
 */
const WARM_DAYS: Record<TextDim, number> = { model: 90, username: 7 };
/** Past this many log ids behind, the sums are still being backfilled: their hours would be dropped again. */
const MAX_BEHIND_IDS = 50_000;
/** Hours rendered per step (one statement), with a turn of the event loop between steps. */
const STEP_HOURS = 6;

/**
 * Renders and stores, in the background, the completed hours of the recent past whose dashboard texts are
 * missing (never rendered, or dropped because late logs were summed into them), so the first dashboard call
 * after a start, a backfill or an hour's end reads texts instead of rendering them. Idempotent and safe on
 * every instance: a text is stored only under the generation read before rendering (SeriesTextRepository).
 */
@Injectable()
export class HourTextsWarmer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('DashboardTexts');
  private running?: Promise<void>;
  private stopping = false;

  constructor(
    private readonly texts: SeriesTextRepository,
    private readonly hourly: LogHourlyRepository,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    scheduleEvery(
      this.scheduler,
      'dashboard-hour-texts',
      WARM_EVERY_MS,
      () => this.tick(),
      (e) => this.logger.warn(`dashboard texts: ${e.message}`),
    );
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    cancelScheduled(this.scheduler, 'dashboard-hour-texts');
    await this.running;
  }

  /** One pass unless one is running; returns how many hours it rendered. */
  async tick(now = nowSeconds()): Promise<number> {
    if (this.running || this.stopping) return 0;
    let rendered = 0;
    const started = performance.now();
    const run = (async () => {
      if ((await this.hourly.maxLogId()) - (await this.hourly.coveredUpTo()) > MAX_BEHIND_IDS) return;
      const to = Math.floor(now / HOUR) * HOUR;
      for (const dim of ['model', 'username'] as const) {
        // Older texts (a range asked once) are dropped a day after they leave the kept range, so the table
        // does not grow by the per-user texts of every past hour (~6 MB a day at 2,000 users).
        await this.texts.dropBefore(dim, to - (WARM_DAYS[dim] + 1) * DAY);
        rendered += await this.warm(dim, to - WARM_DAYS[dim] * DAY, to);
      }
    })().finally(() => {
      this.running = undefined;
    });
    this.running = run;
    await run;
    // Past a day of hours it was a first pass (a start, a backfill): how long it took is worth knowing.
    if (rendered > 24) this.logger.log(`rendered ${rendered} dashboard hours in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return rendered;
  }

  private async warm(dim: TextDim, from: number, to: number): Promise<number> {
    const current = await this.texts.currentHours(dim, from, to);
    let rendered = 0;
    for (let h = from; h < to && !this.stopping; ) {
      if (current.has(h)) {
        h += HOUR;
        continue;
      }
      // A run of missing hours, up to STEP_HOURS, rendered in one statement.
      let end = h + HOUR;
      while (end < to && end - h < STEP_HOURS * HOUR && !current.has(end)) end += HOUR;
      const gens = await this.texts.generations(dim, h, end);
      const hours: Array<{ hour: number; gen?: number; rows: number; text: string }> = [];
      for (const [hour, r] of await this.texts.render(dim, h, end))
        if (r.text !== undefined) hours.push({ hour, gen: gens.get(hour), rows: r.rows, text: r.text });
      await this.texts.store(dim, hours);
      rendered += end - h;
      h = end;
      await yieldToEventLoop();
    }
    return rendered / HOUR;
  }
}
