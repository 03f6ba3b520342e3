/**
 * Read shapes of the channel affinity routes (new-api's), shared by the gateway and the console (type-only).
 */

/** GET /api/option/channel_affinity_cache (root): the live pins. */
export interface AffinityCacheStats {
  enabled: boolean;
  total: number;
  /** Pins no current rule accounts for (rules renamed or removed, or without include_rule_name). */
  unknown: number;
  by_rule_name: Record<string, number>;
  cache_capacity: number;
  cache_algo: string;
  backend: 'redis' | 'memory';
}

/** One affinity key's traffic over its window (new-api's channel_affinity_usage_cache counters). */
export interface AffinityUsageCounters {
  cached_token_rate_mode: string;
  hit: number;
  total: number;
  window_seconds: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  prompt_cache_hit_tokens: number;
  last_seen_at: number;
}

/** GET /api/log/channel_affinity_usage_cache (admin): one key's counters. */
export interface AffinityUsageStats extends AffinityUsageCounters {
  rule_name: string;
  using_group: string;
  key_fp: string;
}
