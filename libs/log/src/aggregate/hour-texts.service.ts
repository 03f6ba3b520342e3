import { Injectable, Logger } from '@nestjs/common';
import type { JsonRun } from '@gw/core';
import { nowSeconds } from '@gw/database';
import { HOUR, type HourlyBucket } from './hourly-buckets.js';
import { LogHourlyRepository } from './log-hourly.repository.js';
import { addTail, toViews } from './series-rows.js';
import { type RenderedHour, SeriesTextRepository, type StoredHour, type TextDim } from './series-text.repository.js';

/**
 * The hourly dashboard answer as the JSON text of its hours. A completed hour's text is rendered by the
 * database once and stored (`log_series_text`); later calls read it back, so a week of 2,000 users' hours
 * (~250 k rows) is a read of 168 texts instead of a render of every row. The current hour is rendered on
 * each call (its sums change every few seconds), and an hour the tail reaches (logs not summed yet) is built
 * from its rows in JS with the tail added. The aggregator invalidates a stored hour in the transaction that
 * adds into it, so a stored text always equals the sums it was rendered from.
 */
@Injectable()
export class HourTextsService {
  private readonly logger = new Logger('DashboardTexts');

  constructor(
    private readonly texts: SeriesTextRepository,
    private readonly hourly: LogHourlyRepository,
  ) {}

  /**
   * Whether the hourly answer over [from, to) has more than `limit` rows: from the stored row counts when every
   * completed hour of the range has a current text, else counted in the index (up to limit + 1 entries).
   */
  async exceeds(dim: TextDim, from: number, to: number, limit: number, now = nowSeconds()): Promise<boolean> {
    const complete = Math.min(to, completedBefore(now));
    if (complete > from) {
      const stored = await this.texts.currentRowCounts(dim, from, complete);
      if (stored.rows > limit) return true;
      if (stored.missing === 0) return complete < to && (await this.hourly.seriesExceeds(dim, complete, to, limit - stored.rows));
    }
    return this.hourly.seriesExceeds(dim, from, to, limit);
  }

  /**
   * The rows of the hours [from, to) as JSON text fragments in time order (each a run of comma-separated
   * objects ordered by name; hours without rows left out), with the tail's buckets added into their hours.
   */
  async fragments(dim: TextDim, from: number, to: number, tail: HourlyBucket[], now = nowSeconds()): Promise<JsonRun[]> {
    const complete = Math.max(from, Math.min(to, completedBefore(now)));
    const tailByHour = new Map<number, HourlyBucket[]>();
    for (const bucket of tail) {
      if (bucket.dim !== dim || bucket.hour < from || bucket.hour >= to) continue;
      const list = tailByHour.get(bucket.hour);
      if (list) list.push(bucket);
      else tailByHour.set(bucket.hour, [bucket]);
    }
    // The generations are read before any render: a text is stored only under the generation it was read at.
    const stored = complete > from ? await this.texts.read(dim, from, complete) : new Map<number, StoredHour>();
    const missing: number[] = [];
    for (let h = from; h < to; h += HOUR) if (!tailByHour.has(h) && stored.get(h)?.body === undefined) missing.push(h);
    const rendered = new Map<number, RenderedHour>();
    for (const [a, b] of runs(missing)) for (const [h, r] of await this.texts.render(dim, a, b)) rendered.set(h, r);
    const completed: Array<{ hour: number; gen?: number; rows: number; text: string }> = [];
    for (const [hour, r] of rendered)
      if (hour < complete && r.text !== undefined) completed.push({ hour, gen: stored.get(hour)?.gen, rows: r.rows, text: r.text });
    // Keeping the texts only saves later calls work: a failure to store them (a lock wait or deadlock with the
    // aggregator on MySQL) must not fail this answer, which has its texts already.
    await this.texts.store(dim, completed).catch((error: Error) => this.logger.warn(`storing dashboard texts: ${error.message}`));

    const parts: JsonRun[] = [];
    for (let h = from; h < to; h += HOUR) {
      const hourTail = tailByHour.get(h);
      let text: JsonRun | undefined = hourTail ? undefined : (stored.get(h)?.body ?? rendered.get(h)?.text);
      // The tail's hours, and an hour longer than MySQL's cap on one value, are built from rows.
      if (text === undefined) {
        const views = addTail(toViews(dim, await this.hourly.series(dim, h, h + HOUR)), dim, hourTail ?? []);
        text = views.length > 0 ? JSON.stringify(views).slice(1, -1) : '';
      }
      if (text.length > 0) parts.push(text);
    }
    return parts;
  }
}

/** The start of the current hour: the hours before it are complete (their sums change only with late logs). */
function completedBefore(now: number): number {
  return Math.floor(now / HOUR) * HOUR;
}

/** Sorted hours as runs of consecutive hours [first, last + HOUR). */
function runs(hours: number[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const h of hours) {
    const last = spans[spans.length - 1];
    if (last && last[1] === h) last[1] = h + HOUR;
    else spans.push([h, h + HOUR]);
  }
  return spans;
}
