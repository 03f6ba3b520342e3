/** One `quota_data` row: a user's (or everyone's) use of one model in one hour. */
export interface QuotaDataRow {
  user_id: number;
  username: string;
  model_name: string;
  /** Start of the hour, unix seconds. */
  created_at: number;
  count: number;
  quota: number;
  token_used: number;
}

export type Granularity = 'hour' | 'day' | 'week';
export const GRANULARITIES: Granularity[] = ['hour', 'day', 'week'];

export type Metric = 'quota' | 'count' | 'token_used';

export interface Totals {
  quota: number;
  count: number;
  tokens: number;
}

export interface ModelTotal extends Totals {
  model: string;
}

/** Series ready for a chart: bucket labels on the x axis, one value per bucket for each model. */
export interface ChartSeries {
  buckets: number[];
  models: string[];
  /** values[model][bucketIndex] */
  values: Record<string, number[]>;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The local start of the bucket holding `seconds` (weeks start on Monday). */
export function bucketStart(seconds: number, granularity: Granularity): number {
  const date = new Date(seconds * 1000);
  if (granularity === 'hour') {
    date.setMinutes(0, 0, 0);
  } else {
    date.setHours(0, 0, 0, 0);
    if (granularity === 'week') date.setDate(date.getDate() - ((date.getDay() + 6) % 7));
  }
  return Math.floor(date.getTime() / 1000);
}

export function bucketLabel(seconds: number, granularity: Granularity): string {
  const d = new Date(seconds * 1000);
  const day = `${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return granularity === 'hour' ? `${day} ${pad(d.getHours())}:00` : day;
}

/** Rows summed per bucket and model for one metric; models sorted by their total, largest first. */
export function toSeries(rows: QuotaDataRow[], granularity: Granularity, metric: Metric): ChartSeries {
  const bucketSet = new Set<number>();
  const sums = new Map<string, Map<number, number>>();
  const modelTotals = new Map<string, number>();
  for (const row of rows) {
    const bucket = bucketStart(row.created_at, granularity);
    const model = row.model_name || '-';
    bucketSet.add(bucket);
    const perBucket = sums.get(model) ?? new Map<number, number>();
    perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + row[metric]);
    sums.set(model, perBucket);
    modelTotals.set(model, (modelTotals.get(model) ?? 0) + row[metric]);
  }
  const buckets = [...bucketSet].sort((a, b) => a - b);
  const models = [...modelTotals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([model]) => model);
  const values: Record<string, number[]> = {};
  for (const model of models) values[model] = buckets.map((bucket) => sums.get(model)?.get(bucket) ?? 0);
  return { buckets, models, values };
}

export function totals(rows: QuotaDataRow[]): Totals {
  return rows.reduce((sum, row) => ({ quota: sum.quota + row.quota, count: sum.count + row.count, tokens: sum.tokens + row.token_used }), {
    quota: 0,
    count: 0,
    tokens: 0,
  });
}

/** Models by quota spent (then by requests), largest first. */
export function topModels(rows: QuotaDataRow[], limit = 10): ModelTotal[] {
  const byModel = new Map<string, ModelTotal>();
  for (const row of rows) {
    const model = row.model_name || '-';
    const current = byModel.get(model) ?? { model, quota: 0, count: 0, tokens: 0 };
    current.quota += row.quota;
    current.count += row.count;
    current.tokens += row.token_used;
    byModel.set(model, current);
  }
  return [...byModel.values()].sort((a, b) => b.quota - a.quota || b.count - a.count || a.model.localeCompare(b.model)).slice(0, limit);
}
