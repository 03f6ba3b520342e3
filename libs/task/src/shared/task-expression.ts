import {
  BillingExprError,
  type BillingProgram,
  compileBillingExpr,
  type ExprRequest,
  NO_TOKENS,
  type RequestRuleTrace,
  ruleTraces,
  runBillingExpr,
  taskExpressionProblem,
  type TaskUsage,
} from '@gw/contracts';
import { withMinimumCharge } from '@gw/relay';

/** What a task expression read of the submit (its literal param() paths and header() names), kept for settlement. */
export interface FrozenRequest {
  params: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * A task priced by its model's billing expression (new-api's task usage expressions): the expression, the facts
 * and the request as they were at submit, and the money conversion, frozen so that settlement re-runs it on the
 * provider's final facts whatever the settings say by then.
 */
export interface TaskExprSnapshot {
  source: string;
  usage: TaskUsage;
  request: FrozenRequest;
  /** Quota per US$ × group ratio at submit. */
  quotaPerUsd: number;
  minimumCharge: boolean;
}

export interface TaskExprCharge {
  quota: number;
  tier: string;
  /** The expression's request rules and whether each applied. */
  rules?: RequestRuleTrace[];
}

/** The largest body value a snapshot keeps as it is (JSON characters): an expression may name a field holding media. */
const MAX_FROZEN_VALUE = 4096;

/** A body value as the snapshot keeps it: as it is, or (too large) a string saying so, still not nil for `!= nil`. */
function keepable(value: unknown): unknown {
  const json = JSON.stringify(value ?? null) ?? 'null';
  return json.length <= MAX_FROZEN_VALUE ? (value ?? null) : `[${json.length} characters not kept]`;
}

/** The values the program names, read from the submit. */
export function freezeRequest(program: BillingProgram, request: ExprRequest): FrozenRequest {
  const frozen: FrozenRequest = { params: {}, headers: {} };
  for (const path of program.params) frozen.params[path] = keepable(request.param(path));
  for (const name of program.headers) frozen.headers[name] = request.header(name);
  return frozen;
}

function thawRequest(frozen: FrozenRequest, usage: TaskUsage): ExprRequest {
  return {
    param: (path) => (Object.hasOwn(frozen.params, path) ? frozen.params[path] : null),
    header: (name) => (Object.hasOwn(frozen.headers, name) ? frozen.headers[name]! : ''),
    usage,
  };
}

/**
 * The quota of a task: the expression's US$ × QuotaPerUnit × group ratio, rounded half away from zero, under the
 * model's minimum charge. Throws a BillingExprError when the expression cannot price it.
 */
export function taskExpressionCharge(snapshot: TaskExprSnapshot): TaskExprCharge {
  const program = compileBillingExpr(snapshot.source);
  const problem = taskExpressionProblem(program);
  if (problem) throw new BillingExprError(problem);
  const run = runBillingExpr(program, NO_TOKENS, thawRequest(snapshot.request, snapshot.usage));
  const quota = Math.max(0, Math.round(run.cost * snapshot.quotaPerUsd));
  return { quota: withMinimumCharge(snapshot, quota), tier: run.tier, rules: ruleTraces(program, run) };
}

/**
 * The settlement of a finished task: the frozen expression on the submit's facts overlaid by the provider's final
 * ones (key by key); undefined when it cannot run (the submit charge stays, as in new-api).
 */
export function settleTaskExpression(snapshot: TaskExprSnapshot, finalUsage: TaskUsage | undefined): TaskExprCharge | undefined {
  try {
    return taskExpressionCharge({ ...snapshot, usage: { ...snapshot.usage, ...(finalUsage ?? {}) } });
  } catch (error) {
    if (error instanceof BillingExprError) return undefined;
    throw error;
  }
}
