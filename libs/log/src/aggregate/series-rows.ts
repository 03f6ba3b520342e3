import type { QuotaDataView } from '../quota-data.repository.js';
import type { HourlyBucket } from './hourly-buckets.js';
import type { SummedRow } from './log-hourly.repository.js';
import type { TextDim as Dim } from './series-text.repository.js';

/**
 * The summed rows as new-api's answer rows, in one pass and one object each: a 90-day answer has up to a few
 * hundred thousand of them, so there is no intermediate shape. `when` dates a row (per day: the day's row time).
 */
export function toViews(dim: Dim, rows: SummedRow[], when: (at: number) => number = (at) => at): QuotaDataView[] {
  const views: QuotaDataView[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as SummedRow;
    const name = String(row.name);
    views[i] = {
      id: 0,
      user_id: 0,
      username: dim === 'username' ? name : '',
      model_name: dim === 'model' ? name : '',
      created_at: when(Number(row.at)),
      token_used: Number(row.tokens),
      count: Number(row.count),
      quota: Number(row.quota),
    };
  }
  return views;
}

const nameOf = (view: QuotaDataView) => view.username || view.model_name;
export const byTimeThenName = (a: QuotaDataView, b: QuotaDataView) => {
  const x = nameOf(a);
  const y = nameOf(b);
  return a.created_at - b.created_at || (x < y ? -1 : x > y ? 1 : 0);
};

/**
 * Adds the tail's buckets into the summed rows; ordered by time, then name (as new-api orders them). The
 * summed rows are keyed uniquely already, so only the tail's few keys go through a map; the rows come in the
 * index's order, so the sort is a near-linear pass over runs that are already sorted.
 */
export function addTail(views: QuotaDataView[], dim: Dim, tail: HourlyBucket[]): QuotaDataView[] {
  if (tail.length > 0) {
    const byKey = new Map<string, QuotaDataView>();
    for (const view of views) byKey.set(`${view.created_at}\u0000${nameOf(view)}`, view);
    for (const bucket of tail) {
      const key = `${bucket.hour}\u0000${bucket.name}`;
      const tokens = bucket.promptTokens + bucket.completionTokens;
      const view = byKey.get(key);
      if (view) {
        view.count += bucket.count;
        view.quota += bucket.quota;
        view.token_used += tokens;
      } else {
        const [added] = toViews(dim, [{ name: bucket.name, at: bucket.hour, count: bucket.count, quota: bucket.quota, tokens }]);
        byKey.set(key, added as QuotaDataView);
        views.push(added as QuotaDataView);
      }
    }
  }
  return views.sort(byTimeThenName);
}
