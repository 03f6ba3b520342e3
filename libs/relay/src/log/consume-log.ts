import { LogType, type NewLog } from '@gw/log';
import type { PriceInfo, RelayCaller } from '../pipeline/ports.js';
import { CACHE_CREATION_1H_FACTOR } from '../pricing/billing-formulas.js';
import { type ToolCharge, toolOf } from '../pricing/tool-prices.js';
import type { RelayRequest } from '../pipeline/relay-request.js';
import type { ForwardResult } from '../pipeline/upstream-call.js';
import type { Usage } from '../stream/usage.js';
import { relayLogRow } from './relay-log-row.js';

export interface ConsumeRecord {
  caller: RelayCaller;
  request: Pick<RelayRequest, 'model' | 'stream' | 'path' | 'body'>;
  group: string;
  price: PriceInfo;
  forward: Pick<ForwardResult, 'channel' | 'usedChannels' | 'upstreamModel' | 'localCount' | 'frtMs' | 'conversion' | 'interrupted'>;
  usage: Usage;
  quota: number;
  /** How far the charge took a balance below zero (credit extended; 0 when the balances covered it). */
  shortfall: number;
  requestId: string;
  ip: string;
  useTimeMs: number;
  /** Fields of `other` a route adds (the Realtime relay's `ws` and audio counts). */
  extra?: Record<string, unknown>;
  /** Fields of `other.admin_info` the pipeline adds (channel_affinity). */
  adminExtra?: Record<string, unknown>;
  /** The tool calls billed on top of the tokens. */
  tools?: readonly ToolCharge[];
}

/** The consume row (type 2) of one relayed request: every Log field, `other` as new-api writes it. */
export function buildConsumeLog(record: ConsumeRecord): NewLog {
  const { request, price, forward, usage } = record;
  const adminInfo: Record<string, unknown> = { use_channel: forward.usedChannels.map(String) };
  if (forward.localCount) adminInfo.local_count_tokens = true;
  if (record.adminExtra) Object.assign(adminInfo, record.adminExtra);
  const other: Record<string, unknown> = {
    model_ratio: price.modelRatio,
    group_ratio: price.groupRatio,
    completion_ratio: price.completionRatio,
    model_price: price.usePrice ? price.modelPrice : -1,
    cache_tokens: usage.cachedTokens,
    cache_ratio: price.cacheRatio,
    user_group_ratio: price.userGroupRatio ?? -1,
    frt: forward.frtMs,
    admin_info: adminInfo,
    request_path: request.path,
  };
  if (forward.upstreamModel !== request.model) {
    other.is_model_mapped = true;
    other.upstream_model_name = forward.upstreamModel;
  }
  if ((price.audioInputPrice ?? 0) > 0 && usage.audioTokens) {
    // new-api's keys (its spelling) for Gemini audio input billed at its own price.
    other.audio_input_seperate_price = true;
    other.audio_input_token_count = usage.audioTokens;
    other.audio_input_price = price.audioInputPrice;
  }
  if (usage.imageTokens) {
    // new-api's keys: the input image tokens are logged as image_output, with the ratio they were billed at.
    other.image = true;
    other.image_ratio = price.imageRatio ?? 1;
    other.image_output = usage.imageTokens;
  }
  if (usage.cacheCreationTokens) {
    other.cache_creation_tokens = usage.cacheCreationTokens;
    other.cache_creation_ratio = price.createCacheRatio ?? 1;
    const oneHour = Math.min(usage.cacheCreation1hTokens ?? 0, usage.cacheCreationTokens);
    if (oneHour > 0) {
      // new-api's split of Anthropic cache writes by TTL, each with the ratio it was billed at.
      other.cache_creation_tokens_5m = usage.cacheCreationTokens - oneHour;
      other.cache_creation_ratio_5m = price.createCacheRatio ?? 1;
      other.cache_creation_tokens_1h = oneHour;
      other.cache_creation_ratio_1h = (price.createCacheRatio ?? 1) * CACHE_CREATION_1H_FACTOR;
    }
  }
  if (price.expr) {
    // Billed by the model's expression and the tier it went through (new-api's tiered_expr fields). The expression
    // itself (up to 8 KB) stays in the settings and on the pricing page, not in every row.
    other.billing_mode = 'tiered_expr';
    other.matched_tier = price.expr.tier ?? '';
    if (price.expr.estimatedTier !== undefined) {
      other.estimated_tier = price.expr.estimatedTier;
      Object.assign(other, billingUnit(price.expr.estimatedFixedPrice, 'estimated_'));
    }
    if (price.expr.tier !== undefined) Object.assign(other, billingUnit(price.expr.fixedPrice));
    if (price.expr.rules) other.request_rules = price.expr.rules;
    if (price.expr.failure) adminInfo.billing_expr_error = price.expr.failure;
  }
  for (const { tool, calls, price: perThousand } of record.tools ?? []) {
    // new-api's keys: web_search (Anthropic's and the Responses API's alike), file_search, google_search,
    // google_maps and image_generation (its tiers together, the first tier's price), US$ per 1000 calls.
    const key = tool === 'web_search_preview' ? 'web_search' : toolOf(tool);
    other[key] = true;
    other[`${key}_call_count`] = ((other[`${key}_call_count`] as number | undefined) ?? 0) + calls;
    other[`${key}_price`] ??= perThousand;
  }
  if (forward.conversion) other.request_conversion = forward.conversion;
  if (typeof request.body.reasoning_effort === 'string') other.reasoning_effort = request.body.reasoning_effort;
  if (forward.interrupted) other.stream_status = { status: 'error', end_reason: forward.interrupted };
  if (record.extra) Object.assign(other, record.extra);
  const notes: string[] = [];
  if (record.shortfall > 0) {
    // Admins see every shortfall in the log (docs/billing.md): the account is refused until it tops up.
    notes.push(`balance short by ${record.shortfall}: charged in full, the account is in debt`);
    adminInfo.quota_shortfall = record.shortfall;
  }
  if (usage.promptTokens + usage.completionTokens === 0) notes.push('no billing information from upstream');
  return {
    ...relayLogRow({ ...record, channel: forward.channel }),
    type: LogType.Consume,
    content: notes.join('; '),
    quota: record.quota,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    other,
  };
}

/** new-api's billing_unit and fixed_price of an expression run: per request at a fixed price, else by tokens. */
function billingUnit(fixedPrice: number | undefined, prefix = ''): Record<string, unknown> {
  return fixedPrice === undefined
    ? { [`${prefix}billing_unit`]: 'token' }
    : { [`${prefix}billing_unit`]: 'request', [`${prefix}fixed_price`]: fixedPrice };
}
