/** The filters a log list or stat is restricted by, already resolved for the caller's role. */
export interface LogFilter {
  userId?: number;
  type?: number;
  username?: string;
  tokenName?: string;
  modelName?: string;
  start?: number;
  end?: number;
  channelId?: number;
  group?: string;
  requestId?: string;
  tokenId?: number;
  /** Keyset paging: only rows after this one in the list's order (created_at, id descending). */
  after?: { createdAt: number; id: number };
  /** Only rows with a higher id: the logs the hourly sums do not cover yet. */
  afterId?: number;
}

/**
 * model_name is a LIKE pattern as in new-api (`%` is the caller's wildcard); `_` and the escape
 * character itself match literally, so a model like `gpt_4` is not a pattern.
 */
export function likePattern(value: string): string {
  return value.replace(/[!_]/g, (c) => `!${c}`);
}
