import { describe, expect, it } from 'vitest';
import { bucketKeys, type ConsumeRow, sumIntoBuckets } from './hourly-buckets.js';

const row = (over: Partial<ConsumeRow>): ConsumeRow => ({
  userId: 1,
  username: 'ann',
  tokenName: 'k',
  modelName: 'm',
  channelId: 3,
  group: 'default',
  createdAt: 7200 + 10,
  quota: 5,
  promptTokens: 2,
  completionTokens: 3,
  ...over,
});

describe('sumIntoBuckets', () => {
  it('adds rows of the same hour and key into one bucket per dimension', () => {
    const buckets = sumIntoBuckets([row({}), row({ createdAt: 7200 + 3599, quota: 7 })]);
    expect(buckets).toHaveLength(7);
    for (const bucket of buckets) expect(bucket).toMatchObject({ hour: 7200, count: 2, quota: 12, promptTokens: 4, completionTokens: 6 });
    expect(buckets.find((b) => b.dim === 'user')).toMatchObject({ userId: 1, name: '' });
    expect(buckets.find((b) => b.dim === 'channel')).toMatchObject({ userId: 0, name: '3' });
  });

  it('keeps hours and keys apart', () => {
    const buckets = sumIntoBuckets([row({}), row({ createdAt: 10_800 }), row({ modelName: 'other' })]);
    const all = buckets.filter((b) => b.dim === 'all');
    expect(all.map((b) => [b.hour, b.count])).toEqual([
      [7200, 2],
      [10_800, 1],
    ]);
    expect(buckets.filter((b) => b.dim === 'model' && b.hour === 7200).map((b) => [b.name, b.count])).toEqual([
      ['m', 1],
      ['other', 1],
    ]);
  });

  it('fills exactly the buckets bucketKeys names', () => {
    const one = row({ userId: 9, username: 'bo', tokenName: 't', modelName: 'gpt', channelId: 4, group: 'vip' });
    const filled = sumIntoBuckets([one]).map((b) => [b.dim, b.userId, b.name]);
    expect(filled).toEqual(bucketKeys(one));
  });
});
