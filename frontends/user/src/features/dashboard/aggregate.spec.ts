import { describe, expect, it } from 'vitest';
import { bucketStart, topModels, toSeries, totals, type QuotaDataRow } from './aggregate';

const local = (y: number, m: number, d: number, h = 0) => Math.floor(new Date(y, m - 1, d, h).getTime() / 1000);
const row = (model: string, at: number, quota: number, count = 1, tokens = 10): QuotaDataRow => ({
  user_id: 1,
  username: 'a',
  model_name: model,
  created_at: at,
  count,
  quota,
  token_used: tokens,
});

describe('dashboard aggregation', () => {
  it('starts buckets at the hour, the local day and the Monday of the week', () => {
    const wednesday = local(2025, 1, 15, 13) + 1234;
    expect(bucketStart(wednesday, 'hour')).toBe(local(2025, 1, 15, 13));
    expect(bucketStart(wednesday, 'day')).toBe(local(2025, 1, 15));
    expect(bucketStart(wednesday, 'week')).toBe(local(2025, 1, 13));
    expect(bucketStart(local(2025, 1, 19, 23), 'week')).toBe(local(2025, 1, 13));
  });

  it('sums hours into days per model, biggest model first, zero where a model had no use', () => {
    const rows = [
      row('a', local(2025, 1, 15, 1), 5),
      row('b', local(2025, 1, 15, 2), 100),
      row('a', local(2025, 1, 15, 9), 7),
      row('a', local(2025, 1, 16, 3), 1),
    ];
    const series = toSeries(rows, 'day', 'quota');
    expect(series.buckets).toEqual([local(2025, 1, 15), local(2025, 1, 16)]);
    expect(series.models).toEqual(['b', 'a']);
    expect(series.values).toEqual({ b: [100, 0], a: [12, 1] });
    expect(toSeries(rows, 'hour', 'count').buckets).toHaveLength(4);
  });

  it('totals and ranks models by quota', () => {
    const rows = [row('a', 0, 5, 2, 3), row('b', 0, 9, 1, 4), row('a', 3600, 6, 1, 1)];
    expect(totals(rows)).toEqual({ quota: 20, count: 4, tokens: 8 });
    expect(topModels(rows)).toEqual([
      { model: 'a', quota: 11, count: 3, tokens: 4 },
      { model: 'b', quota: 9, count: 1, tokens: 4 },
    ]);
    expect(topModels(rows, 1)).toHaveLength(1);
  });
});
