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
}

/**
 * model_name is a LIKE pattern as in new-api (`%` is the caller's wildcard); `_` and the escape
 * character itself match literally, so a model like `gpt_4` is not a pattern.
 */
export function likePattern(value: string): string {
  return value.replace(/[!_]/g, (c) => `!${c}`);
}
