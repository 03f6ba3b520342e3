/**
 * Client-side checks before an option is saved (spec 000 §5, spec 001 §5). The server checks again; these
 * give the spec's messages at once and keep a bad value from ever being sent.
 */

/** Options whose value is JSON text. */
export const JSON_OPTIONS = new Set([
  'GroupRatio',
  'UserUsableGroups',
  'group_ratio_setting.group_special_usable_group',
  'AutoGroups',
  'ModelPrice',
  'ModelRatio',
  'CacheRatio',
  'CreateCacheRatio',
  'ImageRatio',
  'CompletionRatio',
  'AudioRatio',
  'AudioCompletionRatio',
  'Chats',
  'TopupGroupRatio',
  'PayMethods',
  'ModelRequestRateLimitGroup',
  'gemini.safety_settings',
  'gemini.version_settings',
  'gemini.supported_imagine_models',
  'claude.model_headers_settings',
  'claude.default_max_tokens',
  'channel_affinity_setting.rules',
  'billing_setting.billing_mode',
  'billing_setting.billing_expr',
  'billing_setting.minimum_charge',
  'tool_price_setting.prices',
]);

/** Numeric options and their ranges (the option registry's, as the spec names them). */
export const NUMBER_RANGES: Record<string, { min?: number; max?: number; integer?: boolean }> = {
  QuotaPerUnit: { min: 1 },
  QuotaForNewUser: { min: 0, integer: true },
  QuotaForInviter: { min: 0, integer: true },
  QuotaForInvitee: { min: 0, integer: true },
  QuotaRemindThreshold: { min: 0, integer: true },
  PreConsumedQuota: { min: 0, integer: true },
  RetryTimes: { min: 0, max: 10, integer: true },
  LogRetentionDays: { min: 0, max: 3650, integer: true },
  DataExportInterval: { min: 1, max: 1440, integer: true },
  StreamCacheQueueLength: { min: 0, integer: true },
  ChannelDisableThreshold: { min: 0 },
  ChannelDisableFailureCount: { min: 1, max: 1000, integer: true },
  ChannelDisableFailureWindowMinutes: { min: 1, max: 1440, integer: true },
  'monitor_setting.auto_test_channel_minutes': { min: 1, max: 1440, integer: true },
  'performance_setting.monitor_cpu_threshold': { min: 0, max: 100, integer: true },
  'performance_setting.monitor_memory_threshold': { min: 0, max: 100, integer: true },
  'performance_setting.monitor_disk_threshold': { min: 0, max: 100, integer: true },
  'channel_affinity_setting.max_entries': { min: 1, max: 10000000, integer: true },
  'channel_affinity_setting.default_ttl_seconds': { min: 1, max: 2592000, integer: true },
  ModelRequestRateLimitCount: { min: 0, max: 100000000, integer: true },
  ModelRequestRateLimitSuccessCount: { min: 1, max: 100000000, integer: true },
  ModelRequestRateLimitDurationMinutes: { min: 0, max: 1440, integer: true },
  'gemini.thinking_adapter_budget_tokens_percentage': { min: 0.1, max: 1 },
  'claude.thinking_adapter_budget_tokens_percentage': { min: 0.1, max: 1 },
  Price: { min: 0 },
  USDExchangeRate: { min: 0 },
  MinTopUp: { min: 0, integer: true },
  SMTPPort: { min: 1, max: 65535, integer: true },
  LinuxDOMinimumTrustLevel: { min: 0, max: 4, integer: true },
  'general_setting.ping_interval_seconds': { min: 1, max: 600, integer: true },
};

/** Options that take a URL (http or https), or nothing. */
export const URL_OPTIONS = new Set([
  'ServerAddress',
  'WorkerUrl',
  'TopUpLink',
  'general_setting.docs_link',
  'PayAddress',
  'CustomCallbackAddress',
  'oidc.well_known',
  'oidc.authorization_endpoint',
  'oidc.token_endpoint',
  'oidc.user_info_endpoint',
  'WeChatServerAddress',
]);

/** Write-only options: the server never returns them, so an empty field means "keep", never "clear". */
export const SECRET_OPTIONS = new Set([
  'GitHubClientSecret',
  'LinuxDOClientSecret',
  'WeChatServerToken',
  'TelegramBotToken',
  'oidc.client_secret',
  'TurnstileSecretKey',
  'SMTPToken',
  'WorkerValidKey',
  'EpayKey',
]);

export type CheckProblem = { key: string; message: 'json' | 'number' | 'range' | 'url'; min?: number; max?: number };

export function checkOption(key: string, value: string): CheckProblem | null {
  if (JSON_OPTIONS.has(key)) {
    try {
      JSON.parse(value);
    } catch {
      return { key, message: 'json' };
    }
  }
  const range = NUMBER_RANGES[key];
  if (range) {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || (range.integer && !Number.isInteger(n))) return { key, message: 'number' };
    if ((range.min !== undefined && n < range.min) || (range.max !== undefined && n > range.max))
      return { key, message: 'range', min: range.min, max: range.max };
  }
  if (URL_OPTIONS.has(key) && value !== '' && !/^https?:\/\/\S+$/i.test(value)) return { key, message: 'url' };
  return null;
}

/** The keys of a section whose draft differs from what is stored; an empty secret is never a change. */
export function changedKeys(keys: readonly string[], stored: Record<string, string>, draft: Record<string, string>): string[] {
  return keys.filter((key) => {
    const next = draft[key] ?? '';
    if (SECRET_OPTIONS.has(key)) return next !== '';
    return next !== (stored[key] ?? '');
  });
}

/** A JSON option as the server keeps it: parsed and written back compactly, so formatting alone is no change. */
export function normaliseJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
