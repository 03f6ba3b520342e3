/** The parts of a log row's `other` JSON the console shows; every key is optional (older rows, other writers). */
export interface LogOther {
  model_ratio?: number;
  model_price?: number;
  group_ratio?: number;
  user_group_ratio?: number;
  completion_ratio?: number;
  cache_tokens?: number;
  cache_ratio?: number;
  cache_creation_tokens?: number;
  cache_creation_ratio?: number;
  /** Input image tokens billed at the image ratio (new-api names the count image_output). */
  image_output?: number;
  image_ratio?: number;
  /** Gemini audio input billed at its own US$ per million tokens. */
  audio_input_token_count?: number;
  audio_input_price?: number;
  upstream_model_name?: string;
  is_model_mapped?: boolean;
  /** Milliseconds to the first byte of the answer. */
  frt?: number;
  reasoning_effort?: string;
  request_path?: string;
  /** Billed by the model's expression (billing_setting): the tier it went through. */
  billing_mode?: 'tiered_expr';
  matched_tier?: string;
  /** The expression's request multipliers and whether each applied (new-api's request_rules). */
  request_rules?: { cond: string; multiplier: number; matched: boolean }[];
  /** A task priced by its expression: the facts it read (seconds, resolution …). */
  task_usage?: Record<string, number | string>;
  /** Hosted tool calls billed per call (US$ per 1000 calls). */
  web_search_call_count?: number;
  web_search_price?: number;
  file_search_call_count?: number;
  file_search_price?: number;
  google_search_call_count?: number;
  google_search_price?: number;
  google_maps_call_count?: number;
  google_maps_price?: number;
  image_generation_call_count?: number;
  image_generation_price?: number;
  admin_info?: { use_channel?: (string | number)[]; local_count_tokens?: boolean; channel_affinity?: ChannelAffinityInfo };
  /** Error rows (type 5): what the upstream or the gateway answered. */
  status_code?: number;
  error_type?: string;
  error_code?: string;
}

/** admin_info.channel_affinity: the affinity rule that sent the request to its pinned channel. */
export interface ChannelAffinityInfo {
  rule_name?: string;
  using_group?: string;
  selected_group?: string;
  key_hint?: string;
  key_fp?: string;
  /** Set when the request went to the pinned channel. */
  channel_id?: number;
}

/** The share of prompt tokens served from the provider's cache, as the key's client format counts them. */
export function cacheHitRate(usage: { cached_token_rate_mode: string; prompt_tokens: number; cached_tokens: number }): number {
  const base =
    usage.cached_token_rate_mode === 'cached_over_prompt_plus_cached' ? usage.prompt_tokens + usage.cached_tokens : usage.prompt_tokens;
  return base > 0 ? usage.cached_tokens / base : 0;
}

/** Parses `other`; anything that is not a JSON object reads as empty rather than breaking the row. */
export function parseOther(text: string | null | undefined): LogOther {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as LogOther) : {};
  } catch {
    return {};
  }
}

export type TimeColor = 'green' | 'orange' | 'red';

/** Use time (seconds): under 101 s green, under 300 s orange, else red (spec 001 §9). */
export function useTimeColor(seconds: number): TimeColor {
  if (seconds < 101) return 'green';
  if (seconds < 300) return 'orange';
  return 'red';
}

/** First-token time (seconds): under 3 s green, under 10 s orange, else red (spec 001 §9). */
export function firstTokenColor(seconds: number): TimeColor {
  if (seconds < 3) return 'green';
  if (seconds < 10) return 'orange';
  return 'red';
}

/** The channels tried for a request, in order, when more than one was (the retry chain). */
export function retryChain(other: LogOther): string[] {
  const used = other.admin_info?.use_channel ?? [];
  return used.length > 1 ? used.map(String) : [];
}

/** A fixed per-call price is recorded as model_price >= 0; per-token rows carry -1. */
export function isPerCallPrice(other: LogOther): boolean {
  return typeof other.model_price === 'number' && other.model_price >= 0;
}

/** The effective group ratio: a user-specific ratio (when set, >= 0) wins over the group's. */
export function effectiveGroupRatio(other: LogOther): number | undefined {
  if (typeof other.user_group_ratio === 'number' && other.user_group_ratio >= 0) return other.user_group_ratio;
  return other.group_ratio;
}
