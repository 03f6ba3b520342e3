import { Injectable, Logger } from '@nestjs/common';
import type { JsonRun } from '@gw/core';
import { DAY } from './log-daily.js';
import { dayTextDim, type RenderedHour, SeriesTextRepository, type TextDim } from './series-text.repository.js';

/**
 * The whole UTC days of a per-day dashboard answer as the JSON text of each day's rows, stored once rendered
 * (`log_series_text` under the dimension's day key, e.g. `username-day`) and read back on later calls: 90 days
 * of 2,000 users are ~180 k rows, which the database rendered again on every call. The rules are the hour
 * texts' (HourTextsService): the aggregator raises a day's generation and drops its text in the transaction
 * that adds into the day's sums (a late log included), and a rendered text is stored only under the generation
 * read before rendering, so a stored day always equals its sums.
 */
@Injectable()
export class DayTextsService {
  private readonly logger = new Logger('DashboardTexts');

  constructor(private readonly texts: SeriesTextRepository) {}

  /**
   * The rows of the days [fromDay, toDay) as JSON text fragments in time order (days without rows left out), or
   * undefined when a day's text hit MySQL's cap on one value (the caller then reads rows).
   */
  async fragments(dim: TextDim, fromDay: number, toDay: number): Promise<JsonRun[] | undefined> {
    const key = dayTextDim(dim);
    // The generations are read before any render: a text is stored only under the generation it was read at.
    const stored = await this.texts.read(key, fromDay, toDay);
    const rendered = new Map<number, RenderedHour>();
    for (const [a, b] of missingRuns(fromDay, toDay, (day) => stored.get(day)?.body !== undefined))
      for (const [day, r] of await this.texts.renderDays(dim, a, b)) rendered.set(day, r);
    const fresh: Array<{ hour: number; gen?: number; rows: number; text: string }> = [];
    for (const [day, r] of rendered) {
      if (r.text === undefined) return undefined;
      fresh.push({ hour: day, gen: stored.get(day)?.gen, rows: r.rows, text: r.text });
    }
    // Storing only saves later calls work: a failure (a lock wait with the aggregator on MySQL) must not fail
    // this answer, which has its texts already.
    await this.texts.store(key, fresh).catch((error: Error) => this.logger.warn(`storing dashboard day texts: ${error.message}`));
    const parts: JsonRun[] = [];
    for (let day = fromDay; day < toDay; day += DAY) {
      const text = stored.get(day)?.body ?? rendered.get(day)?.text;
      if (text !== undefined && text.length > 0) parts.push(text);
    }
    return parts;
  }
}

/** The days of [fromDay, toDay) that `has` no text for, as runs of consecutive days [first, last + DAY). */
export function missingRuns(fromDay: number, toDay: number, has: (day: number) => boolean): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let day = fromDay; day < toDay; day += DAY) {
    if (has(day)) continue;
    const last = runs[runs.length - 1];
    if (last && last[1] === day) last[1] = day + DAY;
    else runs.push([day, day + DAY]);
  }
  return runs;
}
