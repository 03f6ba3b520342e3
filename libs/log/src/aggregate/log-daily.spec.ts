import { describe, expect, it } from 'vitest';
import type { HourlyBucket } from './hourly-buckets.js';
import { DAY, DAY_ROW_OFFSET, dayRowTime, splitIntoDays, toDailyBuckets } from './log-daily.js';

const H = 3600;
const bucket = (over: Partial<HourlyBucket>): HourlyBucket => ({
  dim: 'model',
  userId: 0,
  name: 'm',
  hour: 0,
  count: 1,
  quota: 10,
  promptTokens: 2,
  completionTokens: 3,
  ...over,
});

describe('toDailyBuckets', () => {
  it('sums the hours of a UTC day into one bucket per key, for the dashboard dimensions only', () => {
    const days = toDailyBuckets([
      bucket({ hour: DAY }),
      bucket({ hour: DAY + 23 * H, quota: 5 }),
      bucket({ hour: 2 * DAY }),
      bucket({ dim: 'username', name: 'ann', hour: DAY }),
      bucket({ dim: 'token', name: 'k', hour: DAY }),
    ]);
    expect(days.map((d) => [d.dim, d.name, d.day, d.count, d.quota])).toEqual([
      ['model', 'm', DAY, 2, 15],
      ['model', 'm', 2 * DAY, 1, 10],
      ['username', 'ann', DAY, 1, 10],
    ]);
  });
});

describe('splitIntoDays', () => {
  it('reads the whole days inside a range per day and the hours of its partial days', () => {
    expect(splitIntoDays(DAY - 3 * H, 4 * DAY + 5 * H)).toEqual({
      firstDay: DAY,
      endDay: 4 * DAY,
      hours: [
        [DAY - 3 * H, DAY],
        [4 * DAY, 4 * DAY + 5 * H],
      ],
    });
    expect(splitIntoDays(DAY, 3 * DAY)).toEqual({ firstDay: DAY, endDay: 3 * DAY, hours: [] });
  });

  it('splits a range without a whole day at the day boundary inside it', () => {
    expect(splitIntoDays(DAY + H, 2 * DAY + 5 * H)).toEqual({
      firstDay: 2 * DAY,
      endDay: 2 * DAY,
      hours: [
        [DAY + H, 2 * DAY],
        [2 * DAY, 2 * DAY + 5 * H],
      ],
    });
    expect(splitIntoDays(DAY + H, DAY + 5 * H)).toEqual({ firstDay: 2 * DAY, endDay: 2 * DAY, hours: [[DAY + H, DAY + 5 * H]] });
  });

  it('dates a day row at the noon of its day', () => {
    expect(dayRowTime(DAY + 7 * H + 5)).toBe(DAY + DAY_ROW_OFFSET);
    expect(dayRowTime(DAY)).toBe(DAY + DAY_ROW_OFFSET);
  });
});
