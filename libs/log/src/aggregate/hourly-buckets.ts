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

/**
 * Calls `visit` with the (user_id, name) key of each dimension for one row: the one list of dimensions.
 * A callback rather than an array, since it runs for every consume row the aggregator reads and seven
 * small arrays per row were most of sumIntoBuckets' garbage.
 */
export function forEachBucketKey(row: ConsumeRow, visit: (dim: HourlyDim, userId: number, name: string) => void): void {
  visit('all', 0, '');
  visit('user', row.userId, '');
  visit('username', 0, row.username);
  visit('token', 0, row.tokenName);
  visit('model', 0, row.modelName);
  visit('channel', 0, String(row.channelId));
  visit('group', 0, row.group);
}

/** The (user_id, name) key of each dimension for one row. */
export function bucketKeys(row: ConsumeRow): Array<[HourlyDim, number, string]> {
  const keys: Array<[HourlyDim, number, string]> = [];
  forEachBucketKey(row, (dim, userId, name) => keys.push([dim, userId, name]));
  return keys;
}

/** Sums rows into their buckets, one bucket per dimension, key and hour. */
export function sumIntoBuckets(rows: Iterable<ConsumeRow>): HourlyBucket[] {
  const buckets = new Map<string, HourlyBucket>();
  let row: ConsumeRow;
  let hour = 0;
  const add = (dim: HourlyDim, userId: number, name: string): void => {
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
  for (row of rows) {
    hour = row.createdAt - (row.createdAt % HOUR);
    forEachBucketKey(row, add);
  }
  return [...buckets.values()];
}
