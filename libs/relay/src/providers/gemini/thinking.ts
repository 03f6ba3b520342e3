import type { Json, ProviderSettings } from '../types.js';

/**
 * new-api's Gemini thinking adapter (gemini.thinking_adapter_enabled, off by default): the model name's suffix
 * chooses Gemini's thinkingConfig, and Gemini is called with the name without it. Off, no thinkingConfig is made
 * up at all: a Gemini client's own is passed on, and an OpenAI reasoning_effort alone sets nothing (as new-api).
 *
 * - `<model>-thinking-<n>`: thinking on with a budget of n tokens, kept in the model's range.
 * - `<model>-thinking`: thinking on; the budget is a share of maxOutputTokens
 *   (gemini.thinking_adapter_budget_tokens_percentage), else, for a converted request, a share of the model's
 *   largest budget by reasoning_effort; the 2.5 Pro previews of March and May take no budget.
 * - `<model>-nothinking`: a budget of 0, except for the 2.5 Pro models, which cannot stop thinking.
 * - `<model>-max|-xhigh|-high|-medium|-low|-minimal`: thinkingLevel (Gemini 3).
 */

const THINKING = '-thinking';
const THINKING_BUDGET = '-thinking-';
const NO_THINKING = '-nothinking';
/** new-api's effort suffixes (reasoning.EffortSuffixes). */
const EFFORT_SUFFIXES = ['-max', '-xhigh', '-high', '-medium', '-low', '-minimal'];
/** The share of the largest budget (percent) a reasoning_effort asks for; any other effort asks for all of it. */
const EFFORT_PERCENT: Record<string, number> = { high: 80, medium: 50, low: 20, minimal: 5 };
/** Thinking budgets each family accepts (Google's documented ranges, new-api's values). */
const PRO_25 = { min: 128, max: 32768 };
const FLASH_LITE_25 = { min: 512, max: 24576 };
const OTHER = { min: 0, max: 24576 };
/** Gemini 2.5 Pro previews that think without a budget: `-thinking` only asks for the thoughts. */
const BUDGETLESS = ['gemini-2.5-pro-preview-05-06', 'gemini-2.5-pro-preview-03-25'];
const DEFAULT_SHARE = 0.6;

function adapterOn(settings: ProviderSettings): boolean {
  return settings.get<boolean>('gemini.thinking_adapter_enabled') === true;
}

/** The 2.5 Pro models that always think (not the two early previews). */
function isPro25(model: string): boolean {
  return model.startsWith('gemini-2.5-pro') && !BUDGETLESS.some((preview) => model.startsWith(preview));
}

function clampBudget(model: string, budget: number): number {
  const range = model.startsWith('gemini-2.5-flash-lite') ? FLASH_LITE_25 : isPro25(model) ? PRO_25 : OTHER;
  return Math.min(range.max, Math.max(range.min, budget));
}

function budgetForEffort(model: string, effort: string): number {
  const largest = isPro25(model) ? PRO_25.max : OTHER.max;
  const percent = EFFORT_PERCENT[effort];
  return clampBudget(model, percent === undefined ? largest : Math.floor((largest * percent) / 100));
}

function effortSuffix(model: string): string | undefined {
  return EFFORT_SUFFIXES.find((suffix) => model.endsWith(suffix));
}

/** The model Gemini is called with: the adapter's suffix dropped while the adapter is on. */
export function geminiModelName(model: string, settings: ProviderSettings): string {
  if (!adapterOn(settings)) return model;
  const budgetAt = model.indexOf(THINKING_BUDGET);
  if (budgetAt >= 0) return model.slice(0, budgetAt);
  if (model.endsWith(THINKING)) return model.slice(0, -THINKING.length);
  if (model.endsWith(NO_THINKING)) return model.slice(0, -NO_THINKING.length);
  const effort = effortSuffix(model);
  return effort ? model.slice(0, -effort.length) : model;
}

/**
 * The thinkingConfig the adapter sends for this model name (with its suffix), or undefined. `effort` is the
 * converted request's reasoning_effort ('' when it set none); undefined for a Gemini client's own request.
 */
export function thinkingConfigFor(
  model: string,
  settings: ProviderSettings,
  maxOutputTokens: unknown,
  effort: string | undefined,
): Json | undefined {
  if (!adapterOn(settings)) return undefined;
  const budgetAt = model.indexOf(THINKING_BUDGET);
  if (budgetAt >= 0) {
    const tail = model.slice(budgetAt + THINKING_BUDGET.length);
    const budget = /^[+-]?\d+$/.test(tail) ? Number(tail) : Number.NaN;
    return Number.isFinite(budget) ? { includeThoughts: true, thinkingBudget: clampBudget(model, budget) } : undefined;
  }
  if (model.endsWith(THINKING)) {
    if (BUDGETLESS.some((preview) => model.startsWith(preview))) return { includeThoughts: true };
    const max = Number(maxOutputTokens);
    if (Number.isFinite(max) && max > 0) {
      const configured = Number(settings.get('gemini.thinking_adapter_budget_tokens_percentage'));
      const share = Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_SHARE;
      return { includeThoughts: true, thinkingBudget: clampBudget(model, Math.trunc(share * max)) };
    }
    return effort === undefined ? { includeThoughts: true } : { includeThoughts: true, thinkingBudget: budgetForEffort(model, effort) };
  }
  if (model.endsWith(NO_THINKING)) return isPro25(model) ? undefined : { thinkingBudget: 0 };
  const level = effortSuffix(model)?.slice(1);
  return level ? { includeThoughts: true, thinkingLevel: level } : undefined;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A Gemini client's own request: the adapter's thinkingConfig is added only when the client sent none (in
 * either spelling); a generationConfig that is not an object is left for Gemini to refuse.
 */
export function withAdapterThinking(body: Record<string, unknown>, model: string, settings: ProviderSettings): Record<string, unknown> {
  if (!adapterOn(settings)) return body;
  const key = body.generationConfig === undefined && body.generation_config !== undefined ? 'generation_config' : 'generationConfig';
  const config = body[key] ?? {};
  if (!isObject(config) || config.thinkingConfig !== undefined || config.thinking_config !== undefined) return body;
  const thinking = thinkingConfigFor(model, settings, config.maxOutputTokens ?? config.max_output_tokens, undefined);
  return thinking ? { ...body, [key]: { ...config, thinkingConfig: thinking } } : body;
}
