import { add, dec, mul, roundToInteger, sign, truncateToInteger, type Decimal } from './exact-decimal.js';
import { expressionCharge, expressionEstimate, type PriceExpr, realtimeExpressionCharge } from './expression-pricing.js';
import { type BillableUsage, nonNegative, splitPrompt } from './prompt-split.js';

/** How one request is priced (new-api's PriceData, the parts the text relay uses). */
export interface PriceInfo {
  usePrice: boolean;
  /** US$ per call in price mode; -1 otherwise (as new-api logs it). */
  modelPrice: number;
  modelRatio: number;
  completionRatio: number;
  cacheRatio: number;
  /** Ratio of prompt-cache writes (Anthropic cache creation); 1 when absent. */
  createCacheRatio?: number;
  /** Ratio of input image tokens (ImageRatio); 1 when absent. */
  imageRatio?: number;
  /** US$ per million input audio tokens billed apart (new-api's Gemini audio input prices); absent or 0: none. */
  audioInputPrice?: number;
  groupRatio: number;
  /**
   * GroupGroupRatio's override for the caller's group in the using group, when one applied (then groupRatio
   * equals it); logged as `other.user_group_ratio`, -1 when absent (new-api's GroupSpecialRatio).
   */
  userGroupRatio?: number;
  /** The model's billing expression, when billing_setting prices it so (the ratio fields are then 0). */
  expr?: PriceExpr;
  /** billing_setting.minimum_charge: a positive charge below MINIMUM_CHARGE_QUOTA is raised to it. */
  minimumCharge?: boolean;
}

/** new-api's host-side minimum charge, in quota. */
const MINIMUM_CHARGE_QUOTA = 10;

/** A charge under the model's minimum-charge policy: 0 stays 0, anything between 0 and the minimum is raised to it. */
export function withMinimumCharge(info: Pick<PriceInfo, 'minimumCharge'>, quota: number): number {
  return info.minimumCharge && quota > 0 && quota < MINIMUM_CHARGE_QUOTA ? MINIMUM_CHARGE_QUOTA : quota;
}

export type { BillableUsage } from './prompt-split.js';

/**
 * A 1-hour cache write costs this many times a 5-minute one: Anthropic prices them at 2× and 1.25× the input
 * price, and new-api derives the 1-hour ratio as the creation ratio × 6 / 3.75.
 */
export const CACHE_CREATION_1H_FACTOR = 6 / 3.75;

/** The model ratio new-api bills a model with no price or ratio at (self-use mode / accept-unset users). */
export const UNSET_MODEL_RATIO = 37.5;

/** A model is free when its price/ratio or the group ratio is 0: new-api then pre-consumes nothing. */
export function isFree(info: PriceInfo): boolean {
  if (info.expr) return info.groupRatio === 0;
  return info.groupRatio === 0 || (info.usePrice ? info.modelPrice === 0 : info.modelRatio === 0);
}

/**
 * The estimate taken before the upstream call (new-api ModelPriceHelper). Ratio mode:
 * (max(prompt estimate, PreConsumedQuota) + max_tokens) × model ratio × group ratio; price mode: the
 * fixed price × QuotaPerUnit × group ratio. Both truncate toward zero, as new-api's int conversion does
 * (the settlement below rounds; the difference is settled anyway).
 */
export function preConsumeQuota(
  info: PriceInfo,
  promptTokens: number,
  maxTokens: number,
  preConsumedTokens: number,
  quotaPerUnit: number,
): number {
  return withMinimumCharge(info, estimateQuota(info, promptTokens, maxTokens, preConsumedTokens, quotaPerUnit));
}

function estimateQuota(info: PriceInfo, promptTokens: number, maxTokens: number, preConsumedTokens: number, quotaPerUnit: number): number {
  if (isFree(info)) return 0;
  if (info.expr) return expressionEstimate(info.expr, Math.max(promptTokens, preConsumedTokens), maxTokens, quotaPerUnit, info.groupRatio);
  if (info.usePrice) return Math.max(0, Math.trunc(info.modelPrice * quotaPerUnit * info.groupRatio));
  const tokens = Math.max(promptTokens, preConsumedTokens) + Math.max(0, maxTokens || 0);
  return Math.max(0, Math.trunc(tokens * (info.modelRatio * info.groupRatio)));
}

/**
 * The most a request that set `max_tokens` can cost in ratio mode: its prompt plus max_tokens priced
 * as completion tokens (new-api's estimate above prices them as prompt tokens, below the real price
 * when the completion ratio exceeds 1). The relay reserves the larger of the two (docs/billing.md);
 * 0 without max_tokens or in price mode, where the estimate is already the price.
 */
export function worstCaseQuota(info: PriceInfo, promptTokens: number, maxTokens: number, preConsumedTokens: number): number {
  // An expression's estimate already prices max_tokens as completion.
  if (isFree(info) || info.usePrice || info.expr || !(maxTokens > 0)) return 0;
  const tokens = Math.max(promptTokens, preConsumedTokens) + maxTokens * Math.max(1, info.completionRatio);
  return Math.max(0, Math.trunc(tokens * info.modelRatio * info.groupRatio));
}

/**
 * The final charge (new-api calculateTextQuotaSummary), in exact decimals, rounded half away from zero.
 * Ratio mode: (prompt − cached − cache writes + cached × cache ratio + 5-minute cache writes × create-cache
 * ratio + 1-hour cache writes × create-cache ratio × 6/3.75 + completion × completion ratio) × model ratio ×
 * group ratio, at least 1 when the ratio is not 0. Price mode: price × QuotaPerUnit × group ratio.
 * No tokens at all: 0 in both modes (new-api charges nothing for an answer without usage).
 */
export function settleQuota(info: PriceInfo, usage: BillableUsage, quotaPerUnit: number, surcharge = 0): number {
  return withMinimumCharge(info, chargeQuota(info, usage, quotaPerUnit, surcharge));
}

function chargeQuota(info: PriceInfo, usage: BillableUsage, quotaPerUnit: number, toolSurcharge: number): number {
  // An expression prices zero tokens too: a fixed() tier charges per request.
  if (info.expr) return expressionCharge(info.expr, usage, quotaPerUnit, info.groupRatio, toolSurcharge);
  const { prompt, completion, cached, created5m, created1h, image, plain: prompted } = splitPrompt(usage);
  if (prompt + completion === 0) return 0;
  // Audio priced apart leaves the plain prompt (new-api floors what is left at zero) and is added at its own price.
  const audio = separatelyPricedAudio(info, usage);
  const plain = Math.max(0, prompted - audio);
  const surcharge = toolSurcharge + ((info.audioInputPrice ?? 0) / 1_000_000) * audio * info.groupRatio * quotaPerUnit;
  if (info.usePrice)
    return Math.max(
      0,
      roundExact(info.modelPrice * quotaPerUnit * info.groupRatio + surcharge, () =>
        add(mul(mul(dec(info.modelPrice), dec(quotaPerUnit)), dec(info.groupRatio)), dec(surcharge)),
      ),
    );
  // A free model (ratio 0) still pays the searches its provider ran (new-api adds the surcharge in every mode).
  if (info.modelRatio === 0 || info.groupRatio === 0) return Math.max(0, Math.round(surcharge));
  const createRatio = info.createCacheRatio ?? 1;
  const createRatio1h = createRatio * CACHE_CREATION_1H_FACTOR;
  const imageRatio = info.imageRatio ?? 1;
  const approx =
    (plain +
      cached * info.cacheRatio +
      created5m * createRatio +
      created1h * createRatio1h +
      image * imageRatio +
      completion * info.completionRatio) *
      info.modelRatio *
      info.groupRatio +
    surcharge;
  const quota = roundExact(approx, () => {
    // new-api's 1-hour ratio is the float product createRatio × (6.0 / 3.75), turned into a decimal as such.
    const writes = add(mul(dec(created5m), dec(createRatio)), mul(dec(created1h), dec(createRatio1h)));
    const cache = add(mul(dec(cached), dec(info.cacheRatio)), writes);
    const prompted = add(add(dec(plain), cache), mul(dec(image), dec(imageRatio)));
    const tokens = add(prompted, mul(dec(completion), dec(info.completionRatio)));
    return add(mul(tokens, mul(dec(info.modelRatio), dec(info.groupRatio))), dec(surcharge));
  });
  return Math.max(1, quota);
}

/** The input audio tokens billed at the model's own audio price (0 when it has none). */
function separatelyPricedAudio(info: PriceInfo, usage: BillableUsage): number {
  return (info.audioInputPrice ?? 0) > 0 ? Math.min(nonNegative(usage.audioTokens), nonNegative(usage.promptTokens)) : 0;
}

/**
 * Rounds like the exact decimal computation, using the double result when it is clearly away from a
 * half (doubles are off by ~1e-16 relative; a tie is where that matters) and the exact decimals otherwise.
 */
function roundExact(approx: number, exact: () => Decimal): number {
  const fraction = approx - Math.floor(approx);
  const margin = 1e-9 * (1 + Math.abs(approx));
  if (Math.abs(fraction - 0.5) > margin && approx > margin) return Math.round(approx);
  const value = exact();
  return sign(value) <= 0 ? 0 : roundToInteger(value);
}

/** A fixed price × QuotaPerUnit × group ratio × factor (images per count, size and quality), rounded like a settlement. */
export function perCallQuota(info: PriceInfo, factor: number, quotaPerUnit: number): number {
  if (isFree(info) || !(factor > 0)) return 0;
  const approx = info.modelPrice * quotaPerUnit * info.groupRatio * factor;
  const quota = roundExact(approx, () => mul(mul(mul(dec(info.modelPrice), dec(quotaPerUnit)), dec(info.groupRatio)), dec(factor)));
  return withMinimumCharge(info, Math.max(0, quota));
}

/** One Realtime response's tokens (`response.done` usage), split by modality; every part is within its total. */
export interface AudioUsage {
  inputTokens: number;
  outputTokens: number;
  inputAudioTokens: number;
  outputAudioTokens: number;
  /** Input tokens served from the prompt cache, and how many of them were audio. */
  cachedTokens: number;
  cachedAudioTokens: number;
}

/** What an audio token costs for a model: input audio in text tokens, and output audio over input audio. */
export interface AudioRatios {
  audio: number;
  audioCompletion: number;
}

/**
 * The charge of one Realtime response (new-api calculateAudioQuota), in exact decimals, rounded half away from
 * zero. Ratio mode: (text in + text out × completion ratio + audio in × audio ratio + audio out × audio ratio ×
 * audio completion ratio) × model ratio × group ratio, with cached input at the cache ratio of what it would
 * cost uncached (new-api bills cached tokens in full; the HTTP relay applies the cache ratio), at least 1 when
 * the ratio is not 0. Input that is neither audio nor text (images) counts as text. Price mode: the fixed price
 * × QuotaPerUnit × group ratio, truncated. No tokens at all: 0.
 */
export function audioQuota(info: PriceInfo, usage: AudioUsage, ratios: AudioRatios, quotaPerUnit: number): number {
  return withMinimumCharge(info, responseAudioQuota(info, usage, ratios, quotaPerUnit));
}

function responseAudioQuota(info: PriceInfo, usage: AudioUsage, ratios: AudioRatios, quotaPerUnit: number): number {
  const input = nonNegative(usage.inputTokens);
  const output = nonNegative(usage.outputTokens);
  if (input + output === 0) return 0;
  if (info.expr) return isFree(info) ? 0 : realtimeExpressionCharge(info.expr, usage, quotaPerUnit, info.groupRatio);
  if (info.usePrice) {
    // Truncated, as new-api's audio quota (and every pre-consume) takes the integer part of a fixed price.
    const exact = mul(mul(dec(info.modelPrice), dec(quotaPerUnit)), dec(info.groupRatio));
    return sign(exact) <= 0 ? 0 : truncateToInteger(exact);
  }
  if (info.modelRatio === 0 || info.groupRatio === 0) return 0;
  const audioIn = Math.min(nonNegative(usage.inputAudioTokens), input);
  const audioOut = Math.min(nonNegative(usage.outputAudioTokens), output);
  const cached = Math.min(nonNegative(usage.cachedTokens), input);
  const cachedAudio = Math.min(nonNegative(usage.cachedAudioTokens), audioIn, cached);
  const cachedText = Math.min(cached - cachedAudio, input - audioIn);
  const textIn = input - audioIn - cachedText;
  const freshAudioIn = audioIn - cachedAudio;
  const textOut = output - audioOut;
  const approx =
    (textIn +
      cachedText * info.cacheRatio +
      freshAudioIn * ratios.audio +
      cachedAudio * ratios.audio * info.cacheRatio +
      textOut * info.completionRatio +
      audioOut * ratios.audio * ratios.audioCompletion) *
    info.modelRatio *
    info.groupRatio;
  const quota = roundExact(approx, () => {
    const audio = dec(ratios.audio);
    const cacheRatio = dec(info.cacheRatio);
    let tokens = add(dec(textIn), mul(dec(cachedText), cacheRatio));
    tokens = add(tokens, mul(dec(freshAudioIn), audio));
    tokens = add(tokens, mul(mul(dec(cachedAudio), audio), cacheRatio));
    tokens = add(tokens, mul(dec(textOut), dec(info.completionRatio)));
    tokens = add(tokens, mul(mul(dec(audioOut), audio), dec(ratios.audioCompletion)));
    return mul(mul(tokens, dec(info.modelRatio)), dec(info.groupRatio));
  });
  return Math.max(1, quota);
}
