/**
 * new-api's channel affinity rules (`channel_affinity_setting.rules`): a request whose model, path and user agent
 * match a rule, and that carries a value at one of the rule's key sources (a session id, a prompt cache key), is
 * sent to the channel that last served that value, so the provider's prompt cache keeps hitting. Shared by the
 * gateway's option check, the relay and the console's rule editor.
 */
export const AFFINITY_KEY_SOURCE_TYPES = ['context_int', 'context_string', 'request_header', 'gjson'] as const;
export type AffinityKeySourceType = (typeof AFFINITY_KEY_SOURCE_TYPES)[number];

export interface AffinityKeySource {
  type: AffinityKeySourceType;
  /** The header name (request_header) or the caller field (context_int, context_string). */
  key?: string;
  /** A dotted path into the JSON body (gjson), e.g. `metadata.user_id` or `messages.0.content`. */
  path?: string;
  /** A dotted path into the value found, when that value is itself JSON (a JSON string in metadata.user_id). */
  nested_path?: string;
}

export interface AffinityRule {
  name: string;
  /** The model must match one of these (a rule with none never matches, as in new-api). */
  model_regex: string[];
  /** When given, the request path must match one. */
  path_regex?: string[];
  /** When given, the User-Agent must contain one (case-insensitive). */
  user_agent_include?: string[];
  /** Tried in order; the first that yields a value is the affinity key. */
  key_sources: AffinityKeySource[];
  /** When given, the value must match it. */
  value_regex?: string;
  /** How long a pin lasts; 0 takes default_ttl_seconds. */
  ttl_seconds?: number;
  /** Goes under the channel's param override: flat keys where it sets none, operations before its own. */
  param_override_template?: Record<string, unknown>;
  /** A request sent to its pinned channel is not retried on another when that channel fails. */
  skip_retry_on_failure?: boolean;
  include_using_group?: boolean;
  include_model_name?: boolean;
  include_rule_name?: boolean;
}

/** The caller fields a context_int / context_string source may name (new-api's context keys). */
export const AFFINITY_CONTEXT_KEYS = ['id', 'user_id', 'token_id', 'token_name', 'group', 'token_group', 'username'] as const;
