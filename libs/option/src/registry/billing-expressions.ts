import { billingExprProblem } from '@gw/contracts';
import { stringMap } from './option-kinds.js';

/** new-api's billing modes of a model: its ratio or price (the default), or its billing expression. */
export const BILLING_MODES = ['ratio', 'tiered_expr'] as const;

/** billing_setting.billing_mode: `{"model": "ratio" | "tiered_expr"}`. */
export function billingModeProblem(value: unknown): string | undefined {
  const problem = stringMap(value);
  if (problem) return problem;
  for (const [model, mode] of Object.entries(value as Record<string, string>)) {
    if (!(BILLING_MODES as readonly string[]).includes(mode)) return `mode of ${model} must be one of ${BILLING_MODES.join(', ')}`;
  }
  return undefined;
}

/** billing_setting.billing_expr: `{"model": "expression"}`, each compiled and run on new-api's smoke vectors. */
export function billingExprMapProblem(value: unknown): string | undefined {
  const problem = stringMap(value);
  if (problem) return problem;
  for (const [model, source] of Object.entries(value as Record<string, string>)) {
    const why = billingExprProblem(source);
    if (why) return `expression of ${model}: ${why}`;
  }
  return undefined;
}
