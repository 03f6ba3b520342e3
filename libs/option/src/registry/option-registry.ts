import { billingExprMapProblem, billingModeProblem } from './billing-expressions.js';
import {
  DEFAULT_AUDIO_COMPLETION_RATIO,
  DEFAULT_AUDIO_RATIO,
  DEFAULT_CACHE_RATIO,
  DEFAULT_COMPLETION_RATIO,
  DEFAULT_IMAGE_RATIO,
  DEFAULT_MODEL_PRICE,
  DEFAULT_MODEL_RATIO,
} from './default-ratios.js';
import {
  bool,
  boolMap,
  float,
  httpUrlOrEmpty,
  int,
  json,
  jsonObject,
  numberMap,
  numberMapOfMaps,
  oneOf,
  secret,
  stringList,
  stringMap,
  stringMapOfMaps,
  text,
  type OptionDef,
  type ValueOf,
} from './option-kinds.js';
import { type AffinityRule, affinityRulesProblem, DEFAULT_AFFINITY_RULES } from './channel-affinity-rules.js';

const DEFAULT_DISABLE_KEYWORDS = [
  'Your credit balance is too low',
  'This organization has been disabled.',
  'You exceeded your current quota',
  'Permission denied',
  'The security token included in the request is invalid',
  'Operation not allowed',
  'Your account is not authorized',
].join('\n');

const DEFAULT_CHATS = [
  { 'Cherry Studio': 'cherrystudio://providers/api-keys?v=1&data={cherryConfig}' },
  { 'Lobe Chat': 'https://chat-preview.lobehub.com/?settings={"keyVaults":{"openai":{"apiKey":"{key}","baseURL":"{address}/v1"}}}' },
  {
    'AI as Workspace':
      'https://aiaw.app/set-provider?provider={"type":"openai","settings":{"apiKey":"{key}","baseURL":"{address}/v1","compatibility":"strict"}}',
  },
  { AMA: 'ama://set-api-key?server={address}&key={key}' },
  { OpenCat: 'opencat://team/join?domain={address}&token={key}' },
];

interface UptimeKumaGroup {
  categoryName: string;
  url: string;
  slug: string;
  description?: string;
}

const uptimeKumaGroups = (value: unknown) =>
  Array.isArray(value) &&
  value.every(
    (g) =>
      jsonObject(g) === undefined &&
      typeof g.categoryName === 'string' &&
      typeof g.slug === 'string' &&
      typeof g.url === 'string' &&
      httpUrlOrEmpty(g.url) === undefined,
  )
    ? undefined
    : 'must be a JSON array of {categoryName, url, slug} with http(s) URLs';

const DEFAULT_GROUP_RATIO = { default: 1, vip: 1, svip: 1 };

const chatsList = (value: unknown) =>
  Array.isArray(value) && value.every((item) => jsonObject(item) === undefined) ? undefined : 'must be a JSON array of objects';

const commaList = (value: string) => (/^[^\s,]+(,[^\s,]+)*$|^$/.test(value) ? undefined : 'must be a comma-separated list');

/** Switches for login, registration and third-party accounts (spec 000 §3). */
const accountOptions = {
  PasswordLoginEnabled: bool(true),
  PasswordRegisterEnabled: bool(true),
  EmailVerificationEnabled: bool(false),
  RegisterEnabled: bool(true),
  EmailDomainRestrictionEnabled: bool(false),
  EmailAliasRestrictionEnabled: bool(false),
  EmailDomainWhitelist: text('gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com', {
    check: commaList,
  }),
  GitHubOAuthEnabled: bool(false),
  GitHubClientId: text(),
  GitHubClientSecret: secret(),
  LinuxDOOAuthEnabled: bool(false),
  LinuxDOClientId: text(),
  LinuxDOClientSecret: secret(),
  LinuxDOMinimumTrustLevel: int(0, { min: 0, max: 4 }),
  WeChatAuthEnabled: bool(false),
  WeChatServerAddress: text('', { check: httpUrlOrEmpty }),
  WeChatServerToken: secret(),
  WeChatAccountQRCodeImageURL: text(),
  TelegramOAuthEnabled: bool(false),
  TelegramBotToken: secret(),
  TelegramBotName: text(),
  'oidc.enabled': bool(false),
  'oidc.well_known': text('', { check: httpUrlOrEmpty }),
  'oidc.client_id': text(),
  'oidc.client_secret': secret(),
  'oidc.authorization_endpoint': text('', { check: httpUrlOrEmpty }),
  'oidc.token_endpoint': text('', { check: httpUrlOrEmpty }),
  'oidc.user_info_endpoint': text('', { check: httpUrlOrEmpty }),
  TurnstileCheckEnabled: bool(false),
  TurnstileSiteKey: text(),
  TurnstileSecretKey: secret(),
  SMTPServer: text(),
  SMTPPort: int(587, { min: 1, max: 65535 }),
  SMTPAccount: text(),
  SMTPFrom: text(),
  SMTPToken: secret(),
  SMTPSSLEnabled: bool(false),
  /** Outbound webhooks and OIDC discovery refuse private addresses unless this is on (threats S3–S6). */
  AllowPrivateOutboundUrls: bool(false),
  /** Provider endpoints (configurable for tests and mirrors; the defaults are the real ones). */
  GitHubTokenUrl: text('https://github.com/login/oauth/access_token', { check: httpUrlOrEmpty }),
  GitHubUserUrl: text('https://api.github.com/user', { check: httpUrlOrEmpty }),
  LinuxDOTokenUrl: text('https://connect.linux.do/oauth2/token', { check: httpUrlOrEmpty }),
  LinuxDOUserUrl: text('https://connect.linux.do/api/user', { check: httpUrlOrEmpty }),
};

/** Passkeys, Discord, daily check-in and legal pages (new-api's passkey/discord/checkin_setting/legal keys). */
const accountSecurityOptions = {
  'passkey.enabled': bool(false),
  /** Empty: the system name. */
  'passkey.rp_display_name': text(),
  /** Empty: the host of ServerAddress, then the request's host. */
  'passkey.rp_id': text(),
  /** Comma- or line-separated exact origins; empty: ServerAddress's origin, then the request's. */
  'passkey.origins': text(),
  'passkey.allow_insecure_origin': bool(false),
  'passkey.user_verification': oneOf(['required', 'preferred', 'discouraged'] as const, 'preferred'),
  'passkey.attachment_preference': oneOf(['', 'platform', 'cross-platform'] as const, ''),
  'discord.enabled': bool(false),
  'discord.client_id': text(),
  'discord.client_secret': secret(),
  DiscordTokenUrl: text('https://discord.com/api/oauth2/token', { check: httpUrlOrEmpty }),
  DiscordUserUrl: text('https://discord.com/api/users/@me', { check: httpUrlOrEmpty }),
  'checkin_setting.enabled': bool(false),
  'checkin_setting.min_quota': int(1000, { min: 0, max: 1_000_000_000 }),
  'checkin_setting.max_quota': int(10000, { min: 0, max: 1_000_000_000 }),
  'legal.user_agreement': text(),
  'legal.privacy_policy': text(),
};

/** Site identity and display (spec 000 §2 other settings). */
const siteOptions = {
  SystemName: text('AI Gateway'),
  Logo: text(),
  Footer: text(),
  Notice: text(),
  About: text(),
  HomePageContent: text(),
  ServerAddress: text('', { check: httpUrlOrEmpty }),
  WorkerUrl: text('', { check: httpUrlOrEmpty }),
  WorkerValidKey: secret(),
  TopUpLink: text('', { check: httpUrlOrEmpty }),
  'general_setting.docs_link': text('', { check: httpUrlOrEmpty }),
  'general_setting.quota_display_type': oneOf(['USD', 'CNY', 'TOKENS'] as const, 'USD'),
  'general_setting.ping_interval_enabled': bool(false),
  'general_setting.ping_interval_seconds': int(60, { min: 1, max: 600 }),
  Chats: json(DEFAULT_CHATS, chatsList),
  /** Uptime Kuma status pages shown on the console (`[{categoryName, url, slug}]`), served through /api/uptime/status. */
  'console_setting.uptime_kuma_groups': json<UptimeKumaGroup[]>([], uptimeKumaGroups),
  DisplayInCurrencyEnabled: bool(true),
  DisplayTokenStatEnabled: bool(true),
  DefaultCollapseSidebar: bool(false),
  DemoSiteEnabled: bool(false),
  SelfUseModeEnabled: bool(false),
};

/** Online payment (epay-compatible) and top-up pricing. */
const paymentOptions = {
  PayAddress: text('', { check: httpUrlOrEmpty }),
  EpayId: text(),
  EpayKey: secret(),
  CustomCallbackAddress: text('', { check: httpUrlOrEmpty }),
  Price: float(7.3, { min: 0 }),
  USDExchangeRate: float(7.3, { min: 0 }),
  MinTopUp: int(1, { min: 0 }),
  TopupGroupRatio: json<Record<string, number>>(DEFAULT_GROUP_RATIO, numberMap),
  PayMethods: json([
    { name: '支付宝', color: 'rgba(var(--semi-blue-5), 1)', type: 'zfb' },
    { name: '微信', color: 'rgba(var(--semi-green-5), 1)', type: 'wx' },
  ]),
};

/** Quota, logs, dashboard, drawing and monitoring (operation settings). */
const operationOptions = {
  QuotaPerUnit: float(500000, { min: 1 }),
  QuotaForNewUser: int(0, { min: 0 }),
  QuotaForInviter: int(0, { min: 0 }),
  QuotaForInvitee: int(0, { min: 0 }),
  QuotaRemindThreshold: int(1000, { min: 0 }),
  PreConsumedQuota: int(500, { min: 0 }),
  RetryTimes: int(0, { min: 0, max: 10 }),
  LogConsumeEnabled: bool(true),
  /** Days of logs to keep; 0 keeps them forever (new-api has no retention at all). */
  LogRetentionDays: int(0, { min: 0, max: 3650 }),
  DataExportEnabled: bool(true),
  DataExportInterval: int(5, { min: 1, max: 1440 }),
  DataExportDefaultTime: oneOf(['hour', 'day', 'week'] as const, 'hour'),
  DrawingEnabled: bool(false),
  MjNotifyEnabled: bool(false),
  MjAccountFilterEnabled: bool(false),
  MjForwardUrlEnabled: bool(false),
  MjModeClearEnabled: bool(false),
  MjActionCheckSuccessEnabled: bool(true),
  CheckSensitiveEnabled: bool(false),
  CheckSensitiveOnPromptEnabled: bool(false),
  SensitiveWords: text(''),
  StreamCacheQueueLength: int(0, { min: 0 }),
  ChannelDisableThreshold: float(5, { min: 0 }),
  AutomaticDisableChannelEnabled: bool(false),
  AutomaticEnableChannelEnabled: bool(false),
  AutomaticDisableKeywords: text(DEFAULT_DISABLE_KEYWORDS),
  AutomaticDisableStatusCodes: text('401'),
  AutomaticRetryStatusCodes: text('100-199,300-399,401-407,409-499,500-503,505-523,525-599'),
  /** Failures needed inside the window before a channel is auto-disabled (new-api disables on one). */
  ChannelDisableFailureCount: int(3, { min: 1, max: 1000 }),
  ChannelDisableFailureWindowMinutes: int(5, { min: 1, max: 1440 }),
  /** Scheduled channel tests from the console (new-api monitor_setting); CHANNEL_TEST_FREQUENCY overrides both. */
  'monitor_setting.auto_test_channel_enabled': bool(false),
  'monitor_setting.auto_test_channel_minutes': int(10, { min: 1, max: 1440 }),
  /**
   * new-api's performance monitor: while on, relay calls get 503 when the machine's CPU, memory or disk use (in
   * percent) is above its threshold; 0 turns one check off. Off by default.
   */
  'performance_setting.monitor_enabled': bool(false),
  'performance_setting.monitor_cpu_threshold': int(90, { min: 0, max: 100 }),
  'performance_setting.monitor_memory_threshold': int(90, { min: 0, max: 100 }),
  'performance_setting.monitor_disk_threshold': int(95, { min: 0, max: 100 }),
  /**
   * new-api's channel affinity: a conversation (a rule's key: a session id, a prompt cache key) goes back to the
   * channel that served it last, for the provider's prompt cache. On by default with new-api's two rules.
   */
  'channel_affinity_setting.enabled': bool(true),
  /** After a retry succeeded elsewhere, pin the channel that answered rather than the one first chosen. */
  'channel_affinity_setting.switch_on_success': bool(true),
  'channel_affinity_setting.max_entries': int(100_000, { min: 1, max: 10_000_000 }),
  'channel_affinity_setting.default_ttl_seconds': int(3600, { min: 1, max: 30 * 86400 }),
  'channel_affinity_setting.rules': json<AffinityRule[]>(DEFAULT_AFFINITY_RULES, affinityRulesProblem),
};

/** Ratios, prices, groups and per-model rate limits (relay and pricing). */
const pricingOptions = {
  ModelRatio: json<Record<string, number>>(DEFAULT_MODEL_RATIO, numberMap),
  CompletionRatio: json<Record<string, number>>(DEFAULT_COMPLETION_RATIO, numberMap),
  CacheRatio: json<Record<string, number>>(DEFAULT_CACHE_RATIO, numberMap),
  /** Prompt-cache write ratio per model (Anthropic cache creation); unlisted models use 1.25 as new-api does. */
  CreateCacheRatio: json<Record<string, number>>({}, numberMap),
  /** Input image tokens per model over text tokens (prompt_tokens_details.image_tokens); unlisted models use 1, as new-api does. */
  ImageRatio: json<Record<string, number>>(DEFAULT_IMAGE_RATIO, numberMap),
  ModelPrice: json<Record<string, number>>(DEFAULT_MODEL_PRICE, numberMap),
  /** Audio tokens per model, in text tokens (the Realtime relay's input audio); unlisted models use 1, as new-api does. */
  AudioRatio: json<Record<string, number>>(DEFAULT_AUDIO_RATIO, numberMap),
  /** Output audio over input audio per model (the Realtime relay); unlisted models use 1, as new-api does. */
  AudioCompletionRatio: json<Record<string, number>>(DEFAULT_AUDIO_COMPLETION_RATIO, numberMap),
  GroupRatio: json<Record<string, number>>(DEFAULT_GROUP_RATIO, numberMap),
  /** `{"userGroup": {"usingGroup": ratio}}`: what a user group pays in another group, over GroupRatio (new-api's default). */
  GroupGroupRatio: json<Record<string, Record<string, number>>>({ vip: { edit_this: 0.9 } }, numberMapOfMaps),
  UserUsableGroups: json<Record<string, string>>({ default: '默认分组', vip: 'vip分组' }, stringMap),
  /**
   * `{"userGroup": {"+:g": desc, "-:g": desc, "g": desc}}`: groups added to (`+:` or a bare name) or removed from
   * (`-:`) UserUsableGroups for users of that group (new-api's key and default).
   */
  'group_ratio_setting.group_special_usable_group': json<Record<string, Record<string, string>>>(
    { vip: { append_1: 'vip_special_group_1', '-:remove_1': 'vip_removed_group_1' } },
    stringMapOfMaps,
  ),
  /** The groups an `auto` token walks, in order (kept to the user's usable groups). */
  AutoGroups: json<string[]>(['default'], stringList),
  /** New users' initial token is created in the `auto` group; the console puts `auto` first. */
  DefaultUseAutoGroup: bool(false),
  ExposeRatioEnabled: bool(false),
  ModelRequestRateLimitEnabled: bool(false),
  ModelRequestRateLimitCount: int(0, { min: 0, max: 100000000 }),
  ModelRequestRateLimitSuccessCount: int(1000, { min: 1, max: 100000000 }),
  ModelRequestRateLimitDurationMinutes: int(1, { min: 0, max: 1440 }),
  ModelRequestRateLimitGroup: json<Record<string, [number, number]>>({}),
  /**
   * Built-in tool calls billed per call (US$ per 1000 calls) over new-api's defaults: web_search 10 (Anthropic),
   * web_search_preview 10 (25 for the gpt-4o and gpt-4.1 families), file_search 2.5, google_search 14, google_maps 25;
   * `tool:prefix*` keys price a family.
   */
  'tool_price_setting.prices': json<Record<string, number>>({}, numberMap),
  /** Per model: `tiered_expr` bills it by its expression in billing_setting.billing_expr instead of its ratio or price. */
  'billing_setting.billing_mode': json<Record<string, string>>({}, billingModeProblem),
  /** Per model: its billing expression (US$ per million tokens; tiers, cache, request-dependent multipliers). */
  'billing_setting.billing_expr': json<Record<string, string>>({}, billingExprMapProblem),
  /**
   * Per model: `true` raises any charge of the model below 10 quota (after the group ratio and tool surcharges)
   * to 10; a free request stays free (new-api's host-side minimum charge, in every billing mode).
   */
  'billing_setting.minimum_charge': json<Record<string, boolean>>({}, boolMap),
};

/** Provider-specific model settings (spec 001 §3). */
const modelOptions = {
  'gemini.safety_settings': json<Record<string, string>>({}, jsonObject),
  'gemini.version_settings': json<Record<string, string>>({}, jsonObject),
  /** new-api's Gemini thinking adapter: `-thinking`, `-thinking-<budget>`, `-nothinking`, `-<effort>` model suffixes. */
  'gemini.thinking_adapter_enabled': bool(false),
  /** The share of maxOutputTokens a `-thinking` model may think with. */
  'gemini.thinking_adapter_budget_tokens_percentage': float(0.6, { min: 0.1, max: 1 }),
  /** Signs the first function call of a converted model turn (Gemini 3 refuses a history call without a thought signature). */
  'gemini.function_call_thought_signature_enabled': bool(true),
  /** Strips `id` from a Gemini client's functionResponse parts on Vertex AI, which refuses the field. */
  'gemini.remove_function_response_id_enabled': bool(true),
  /** Gemini models that answer with pictures: chats ask them for text and image, /v1/images/generations reaches them. */
  'gemini.supported_imagine_models': json<string[]>(
    [
      'gemini-2.0-flash-exp-image-generation',
      'gemini-2.0-flash-exp',
      'gemini-3-pro-image-preview',
      'gemini-3-pro-image',
      'gemini-2.5-flash-image',
      'gemini-3.1-flash-image',
      'gemini-3.1-flash-image-preview',
    ],
    stringList,
  ),
  'claude.model_headers_settings': json<Record<string, unknown>>({}, jsonObject),
  'claude.default_max_tokens': json<Record<string, number>>({}, jsonObject),
  'claude.thinking_adapter_enabled': bool(true),
  'claude.thinking_adapter_budget_tokens_percentage': float(0.8, { min: 0.1, max: 1 }),
  'global.pass_through_request_enabled': bool(false),
};

export const OPTION_REGISTRY = {
  ...accountOptions,
  ...accountSecurityOptions,
  ...siteOptions,
  ...paymentOptions,
  ...operationOptions,
  ...pricingOptions,
  ...modelOptions,
} satisfies Record<string, OptionDef>;

export type OptionKey = keyof typeof OPTION_REGISTRY;
export type OptionValues = { [K in OptionKey]: ValueOf<(typeof OPTION_REGISTRY)[K]> };

export function isOptionKey(key: string): key is OptionKey {
  return Object.hasOwn(OPTION_REGISTRY, key);
}

/** The keys whose defaults `POST /api/option/rest_model_ratio` restores. */
export const RATIO_KEYS = ['ModelRatio', 'CompletionRatio', 'CacheRatio', 'ModelPrice'] as const satisfies readonly OptionKey[];
