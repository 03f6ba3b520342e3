/** What a consume row contributes to the hourly sums. */
export interface ConsumeRow {
  userId: number;
  username: string;
  tokenName: string;
  modelName: string;
  channelId: number;
  group: string;
  createdAt: number;
  quota: number;
  promptTokens: number;
  completionTokens: number;
}

export type HourlyDim = 'all' | 'user' | 'username' | 'token' | 'model' | 'channel' | 'group';

export interface HourlyBucket {
  dim: HourlyDim;
  userId: number;
  name: string;
  hour: number;
  count: number;
  quota: number;
  promptTokens: number;
  completionTokens: number;
}

export const HOUR = 3600;

/** The (user_id, name) key of each dimension for one row. */
export function bucketKeys(row: ConsumeRow): Array<[HourlyDim, number, string]> {
  return [
    ['all', 0, ''],
    ['user', row.userId, ''],
    ['username', 0, row.username],
    ['token', 0, row.tokenName],
    ['model', 0, row.modelName],
    ['channel', 0, String(row.channelId)],
    ['group', 0, row.group],
  ];
}

/**
 * Sums rows into their buckets, one bucket per dimension, key and hour. The dimensions are those of
 * bucketKeys, spelled out here: it runs for every consume row the aggregator reads, and the seven small
 * arrays bucketKeys builds per row were most of its garbage.
 */
export function sumIntoBuckets(rows: Iterable<ConsumeRow>): HourlyBucket[] {
  const buckets = new Map<string, HourlyBucket>();
  const add = (row: ConsumeRow, hour: number, dim: HourlyDim, userId: number, name: string): void => {
    const key = `${dim}\u0000${userId}\u0000${name}\u0000${hour}`;
    const bucket = buckets.get(key);
    if (bucket) {
      bucket.count++;
      bucket.quota += row.quota;
      bucket.promptTokens += row.promptTokens;
      bucket.completionTokens += row.completionTokens;
    } else
      buckets.set(key, {
        dim,
        userId,
        name,
        hour,
        count: 1,
        quota: row.quota,
        promptTokens: row.promptTokens,
        completionTokens: row.completionTokens,
      });
  };
  for (const row of rows) {
    const hour = row.createdAt - (row.createdAt % HOUR);
    add(row, hour, 'all', 0, '');
    add(row, hour, 'user', row.userId, '');
    add(row, hour, 'username', 0, row.username);
    add(row, hour, 'token', 0, row.tokenName);
    add(row, hour, 'model', 0, row.modelName);
    add(row, hour, 'channel', 0, String(row.channelId));
    add(row, hour, 'group', 0, row.group);
  }
  return [...buckets.values()];
}
