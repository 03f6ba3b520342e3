import {
  type BillingProgram,
  BillingExprError,
  type ExprRequest,
  type ExprTokens,
  NO_TOKENS,
  type RequestRuleTrace,
  ruleTraces,
  runBillingExpr,
} from '@gw/contracts';
import type { AudioUsage } from './billing-formulas.js';
import { type BillableUsage, nonNegative, splitPrompt } from './prompt-split.js';

/** A request priced by its model's billing expression (billing_setting, new-api's tiered_expr mode). */
export interface PriceExpr {
  program: BillingProgram;
  /** What param() and header() read: the client's request. */
  request: ExprRequest;
  /** The reservation: charged when the expression cannot run on the final usage (new-api keeps the pre-consumed quota). */
  estimate?: number;
  estimatedTier?: string;
  /** The estimate's tier was priced per request at this many US$ (new-api's estimated_billing_unit "request"). */
  estimatedFixedPrice?: number;
  /** The tier the settlement went through, or why the expression could not run. */
  tier?: string;
  failure?: string;
  /** The request rules of the settlement run and whether each applied (logged as new-api's request_rules). */
  rules?: RequestRuleTrace[];
  /** The settlement's tier was priced per request at this many US$ (new-api's billing_unit "request"). */
  fixedPrice?: number;
}

/**
 * The usage as an expression sees it (new-api BuildTieredTokenParams, OpenAI semantics: the relay's prompt count
 * includes cache reads and writes). `len` is the whole prompt; a category the expression prices with its own
 * variable (cr, cc, cc1h) is taken out of p, the rest stays in p at its price.
 */
export function expressionTokens(program: BillingProgram, usage: BillableUsage, imageCount = 1): ExprTokens {
  const { prompt, completion, cached, created5m, created1h, image } = splitPrompt(usage);
  const audio = Math.min(nonNegative(usage.audioTokens), prompt);
  let p = prompt;
  if (program.uses.has('cr')) p -= cached;
  if (program.uses.has('cc')) p -= created5m;
  if (program.uses.has('cc1h')) p -= created1h;
  if (program.uses.has('img')) p -= image;
  if (program.uses.has('ai')) p -= audio;
  return {
    ...NO_TOKENS,
    p: Math.max(0, p),
    c: completion,
    len: prompt,
    cr: cached,
    cc: created5m,
    cc1h: created1h,
    img: image,
    ai: audio,
    image_count: imageCount,
  };
}

/**
 * US$ per million tokens (the expression's unit) as quota, × the group ratio, plus any tool surcharge (already in
 * quota), rounded half away from zero.
 */
function toQuota(cost: number, quotaPerUnit: number, groupRatio: number, surcharge = 0): number {
  return Math.max(0, Math.round((cost / 1_000_000) * quotaPerUnit * groupRatio + surcharge));
}

/**
 * The reservation: the expression on the prompt estimate (at least PreConsumedQuota tokens) and max_tokens as
 * completion. Throws a BillingExprError when the expression cannot price the request.
 */
export function expressionEstimate(
  expr: PriceExpr,
  promptTokens: number,
  maxTokens: number,
  quotaPerUnit: number,
  groupRatio: number,
): number {
  const p = nonNegative(promptTokens);
  const tokens = { ...NO_TOKENS, p, len: p, c: nonNegative(maxTokens), image_count: expr.request.imageCount ?? 1 };
  const run = runBillingExpr(expr.program, tokens, expr.request);
  expr.estimatedTier = run.tier;
  expr.estimatedFixedPrice = run.fixedPrice;
  expr.estimate = toQuota(run.cost, quotaPerUnit, groupRatio);
  return expr.estimate;
}

/** The charge on the final usage; when the expression cannot run on it, the reservation (new-api). */
export function expressionCharge(expr: PriceExpr, usage: BillableUsage, quotaPerUnit: number, groupRatio: number, surcharge = 0): number {
  return chargeOn(expr, () => expressionTokens(expr.program, usage, expr.request.imageCount), quotaPerUnit, groupRatio, surcharge);
}

/**
 * One Realtime response's charge: `len` is the whole input, `ai`/`ao` its audio in and out, `cr` its cached
 * input; a category the expression names is taken out of `p` (input) or `c` (output), never below zero.
 */
export function realtimeExpressionCharge(expr: PriceExpr, usage: AudioUsage, quotaPerUnit: number, groupRatio: number): number {
  return chargeOn(
    expr,
    () => {
      const input = nonNegative(usage.inputTokens);
      const output = nonNegative(usage.outputTokens);
      const ai = Math.min(nonNegative(usage.inputAudioTokens), input);
      const ao = Math.min(nonNegative(usage.outputAudioTokens), output);
      const cr = Math.min(nonNegative(usage.cachedTokens), input);
      const { uses } = expr.program;
      const p = input - (uses.has('cr') ? cr : 0) - (uses.has('ai') ? ai : 0);
      const c = output - (uses.has('ao') ? ao : 0);
      return { ...NO_TOKENS, p: Math.max(0, p), c: Math.max(0, c), len: input, cr, ai, ao };
    },
    quotaPerUnit,
    groupRatio,
    0,
  );
}

/** One settlement run; a Realtime session runs its expression once per response, so nothing of the last run stays. */
function chargeOn(expr: PriceExpr, tokens: () => ExprTokens, quotaPerUnit: number, groupRatio: number, surcharge: number): number {
  expr.tier = expr.rules = expr.fixedPrice = expr.failure = undefined;
  try {
    const run = runBillingExpr(expr.program, tokens(), expr.request);
    expr.tier = run.tier;
    expr.rules = ruleTraces(expr.program, run);
    expr.fixedPrice = run.fixedPrice;
    return toQuota(run.cost, quotaPerUnit, groupRatio, surcharge);
  } catch (error) {
    if (!(error instanceof BillingExprError)) throw error;
    expr.failure = error.message;
    return expr.estimate ?? 0;
  }
}
