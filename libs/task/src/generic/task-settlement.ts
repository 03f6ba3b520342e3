import { withMinimumCharge } from '@gw/relay';
import type { TaskPrice } from '../shared/task-gate.js';
import { settleTaskExpression } from '../shared/task-expression.js';
import type { TaskReport } from './task-provider.js';
import type { TaskEntity } from './task.entity.js';

/** The per-call quota times the plan's ratios (seconds, size …), truncated like new-api's int conversion. */
export function withRatios(quota: number, ratios: Record<string, number> | undefined): number {
  let total = quota;
  for (const ratio of Object.values(ratios ?? {})) if (Number.isFinite(ratio) && ratio >= 0) total *= ratio;
  return Math.max(0, Math.trunc(total));
}

/** What a submit is charged: its expression's price, else the per-call price × the plan's ratios; under the minimum charge. */
export function submitQuota(price: TaskPrice, ratios: Record<string, number> | undefined): number {
  return price.expr ? price.expr.quota : withMinimumCharge(price, withRatios(price.quota, ratios));
}

/**
 * What a finished task really costs, when that differs from what was charged at submit (new-api's
 * completion settlement), or undefined to keep the submit charge:
 * - a model priced by ratio, and the provider reported the tokens used: tokens × model ratio × group ratio
 *   × the submit's other ratios;
 * - the provider reported final billing multipliers (seconds really rendered …): the per-call price with
 *   those in place of the submit's estimates;
 * - priced by a task expression: the frozen expression on the submit's facts overlaid by the final ones.
 * Prices come from the snapshot taken at submit, so an admin's later price change never reaches a task
 * already in flight.
 */
export function finalTaskQuota(row: TaskEntity, report: TaskReport): number | undefined {
  const context = row.privateData?.billing_context;
  if (!context) return undefined;
  if (context.billing_expr) {
    const charge = settleTaskExpression(context.billing_expr, report.usage);
    return charge === undefined || charge.quota === row.quota ? undefined : charge.quota;
  }
  const ratios = context.other_ratios ?? {};
  let actual: number | undefined;
  const modelRatio = context.model_ratio ?? 0;
  if (!context.per_call_billing && modelRatio > 0 && (report.totalTokens ?? 0) > 0) {
    actual = withRatios((report.totalTokens as number) * modelRatio * (context.group_ratio ?? 1), ratios);
  } else if (report.finalRatios && context.per_call_quota !== undefined) {
    actual = withRatios(context.per_call_quota, { ...ratios, ...report.finalRatios });
  }
  if (actual !== undefined) actual = withMinimumCharge({ minimumCharge: context.minimum_charge }, actual);
  return actual === undefined || actual === row.quota ? undefined : actual;
}
