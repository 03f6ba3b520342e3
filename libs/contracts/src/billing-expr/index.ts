import { goRegExp } from '../go-regexp.js';
import {
  CREDENTIAL_HEADERS,
  evaluateBillingExpr,
  type ExprRequest,
  type ExprRun,
  type ExprTokens,
  NO_TOKENS,
  TOKEN_VARIABLES,
} from './evaluate.js';
import { BillingExprError, type ExprNode, parseBillingExpr } from './parse.js';
import { printExpr } from './print.js';
import { fixedShapeProblem, ruleMultiplier } from './shape.js';
import { smokeUsages, TASK_USAGE_FACTS, TASK_USAGE_KEYS } from './task-usage.js';

export { BillingExprError } from './parse.js';
export { type ExprRequest, type ExprRun, type ExprTokens, NO_TOKENS } from './evaluate.js';
export type { TaskUsage } from './task-usage.js';

/**
 * new-api's tiered expression billing (`billing_setting.billing_mode[model] = "tiered_expr"` with
 * `billing_setting.billing_expr[model]`): one expression prices a request in US$ per million tokens, e.g.
 * `len <= 200000 ? tier("standard", p * 3 + c * 15 + cr * 0.3) : tier("long", p * 6 + c * 22.5 + cr * 0.6)`.
 */
export interface BillingProgram {
  source: string;
  tree: ExprNode;
  /** The token variables the expression names: those are priced apart, the rest stays in p and c. */
  uses: ReadonlySet<keyof ExprTokens>;
  /** The functions it calls (a task expression reads u() and may not call fixed()). */
  calls: ReadonlySet<string>;
  /** The body paths and headers it names as literals: what a task's settlement needs of the submit. */
  params: readonly string[];
  headers: readonly string[];
  /** Its request rules, in the order they appear; a run says which held (ExprRun.rules). */
  rules: readonly RequestRule[];
  /** The `?:` node of each rule → its index in `rules`. */
  ruleOf: ReadonlyMap<ExprNode, number>;
}

/**
 * A request multiplier, new-api's traced shape `<condition on the request> ? <number> : 1`, e.g.
 * `(param("service_tier") == "priority" ? 2 : 1)`: logged with whether it applied, so a user sees why a call cost more.
 */
export interface RequestRule {
  /** The condition, printed canonically. */
  cond: string;
  multiplier: number;
}

const MAX_SOURCE_LENGTH = 8192;
/** Arity of each function (new-api's set); max/min take two or more. */
const FUNCTIONS: Readonly<Record<string, readonly [number, number]>> = {
  tier: [2, 2],
  fixed: [1, 1],
  param: [1, 1],
  header: [1, 1],
  has: [2, 2],
  hour: [1, 1],
  minute: [1, 1],
  weekday: [1, 1],
  month: [1, 1],
  day: [1, 1],
  max: [2, 16],
  min: [2, 16],
  abs: [1, 1],
  ceil: [1, 1],
  floor: [1, 1],
  u: [1, 1],
};
const VARIABLES: ReadonlySet<string> = new Set(TOKEN_VARIABLES);

interface Found {
  uses: Set<keyof ExprTokens>;
  calls: Set<string>;
  params: Set<string>;
  headers: Set<string>;
  rules: RequestRule[];
  ruleOf: Map<ExprNode, number>;
}

function check(node: ExprNode, found: Found): void {
  switch (node.kind) {
    case 'var':
      if (!VARIABLES.has(node.name))
        throw new BillingExprError(`unknown name ${node.name} (token variables: ${TOKEN_VARIABLES.join(', ')})`);
      found.uses.add(node.name as keyof ExprTokens);
      return;
    case 'call': {
      const arity = Object.hasOwn(FUNCTIONS, node.name) ? FUNCTIONS[node.name] : undefined;
      if (!arity) throw new BillingExprError(`unknown function ${node.name}()`);
      if (node.args.length < arity[0] || node.args.length > arity[1])
        throw new BillingExprError(`${node.name}() takes ${arity[0] === arity[1] ? arity[0] : `${arity[0]} or more`} arguments`);
      const first = node.args[0];
      if (node.name === 'tier' && first?.kind !== 'str') throw new BillingExprError('tier() takes the tier name as a string first');
      if (node.name === 'fixed' && (first?.kind !== 'num' || first.value < 0))
        throw new BillingExprError('fixed() takes a price in US$ as a number that is not negative');
      if (node.name === 'u' && (first?.kind !== 'str' || !Object.hasOwn(TASK_USAGE_FACTS, first.value)))
        throw new BillingExprError(`u() takes the name of a task fact written in the expression: ${TASK_USAGE_KEYS.join(', ')}`);
      found.calls.add(node.name);
      if (first?.kind === 'str' && node.name === 'param') found.params.add(first.value);
      if (first?.kind === 'str' && node.name === 'header') {
        const name = first.value.toLowerCase();
        if (CREDENTIAL_HEADERS.has(name)) throw new BillingExprError(`header() cannot read ${name}: it carries the caller's credentials`);
        found.headers.add(name);
      }
      for (const arg of node.args) check(arg, found);
      return;
    }
    case 'array':
      for (const item of node.items) check(item, found);
      return;
    case 'unary':
      check(node.arg, found);
      return;
    case 'binary':
      if (node.op === 'matches') {
        // A pattern the client could choose (from a header or the body) could take any time to run.
        if (node.right.kind !== 'str') throw new BillingExprError('matches takes a pattern written in the expression (a string)');
        try {
          goRegExp(node.right.value);
        } catch (error) {
          throw new BillingExprError(`bad pattern for matches: ${(error as Error).message}`);
        }
      }
      check(node.left, found);
      check(node.right, found);
      return;
    case 'cond': {
      const multiplier = ruleMultiplier(node);
      if (multiplier !== undefined) {
        found.ruleOf.set(node, found.rules.length);
        found.rules.push({ cond: printExpr(node.test), multiplier });
      }
      check(node.test, found);
      check(node.then, found);
      check(node.else, found);
      return;
    }
    default:
      return;
  }
}

const compiled = new Map<string, BillingProgram>();
const MAX_CACHED = 512;

/** The checked program of an expression (cached by its text); throws a BillingExprError saying what is wrong. */
export function compileBillingExpr(source: string): BillingProgram {
  const cached = compiled.get(source);
  if (cached) return cached;
  if (source.length > MAX_SOURCE_LENGTH) throw new BillingExprError(`the expression is longer than ${MAX_SOURCE_LENGTH} characters`);
  // new-api tags versions as `v1:`; v1 is the only one.
  const body = source.trim().replace(/^v1:/, '');
  if (!body.trim()) throw new BillingExprError('the expression is empty');
  const tree = parseBillingExpr(body);
  const found: Found = { uses: new Set(), calls: new Set(), params: new Set(), headers: new Set(), rules: [], ruleOf: new Map() };
  check(tree, found);
  const shape = found.calls.has('fixed') ? fixedShapeProblem(tree) : undefined;
  if (shape) throw new BillingExprError(shape);
  const { uses, calls, rules, ruleOf } = found;
  const program: BillingProgram = { source, tree, uses, calls, params: [...found.params], headers: [...found.headers], rules, ruleOf };
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(source, program);
  return program;
}

/** A rule as the consume log shows it (new-api's `request_rules`). */
export interface RequestRuleTrace extends RequestRule {
  matched: boolean;
}

/** The program's request rules with whether each held in `run`; undefined when it has none. */
export function ruleTraces(program: BillingProgram, run: ExprRun): RequestRuleTrace[] | undefined {
  return program.rules.length ? program.rules.map((rule, i) => ({ ...rule, matched: run.rules[i] === true })) : undefined;
}

/** Runs a program; throws a BillingExprError when it cannot give a price (a type error, a negative or infinite result). */
export function runBillingExpr(program: BillingProgram, tokens: ExprTokens, request: ExprRequest): ExprRun {
  return evaluateBillingExpr(program.tree, tokens, request, program.ruleOf);
}

/** The tokens of the save-time check: nothing, a short and a long exchange (new-api's smoke vectors). */
const SMOKE_SIZES = [0, 1000, 100_000, 1_000_000];
const SMOKE_BODY: Record<string, unknown> = {
  service_tier: 'fast',
  stream_options: { include_usage: true },
  messages: Array.from({ length: 21 }, (_, i) => i + 1),
};
const SMOKE_HEADERS: Readonly<Record<string, string>> = { 'anthropic-beta': 'fast-mode-2026-02-01' };

/** A body path for the save-time check: dotted keys and array indices (`messages.0`), `#` for a length. */
function smokeParam(path: string): unknown {
  let value: unknown = SMOKE_BODY;
  for (const key of path.split('.')) {
    if (Array.isArray(value)) value = key === '#' ? value.length : value[Number(key)];
    else if (typeof value === 'object' && value !== null && Object.hasOwn(value, key)) value = (value as Record<string, unknown>)[key];
    else return null;
  }
  return value ?? null;
}

const SMOKE_REQUESTS: readonly ExprRequest[] = [
  { param: () => null, header: () => '' },
  { param: smokeParam, header: (name) => (Object.hasOwn(SMOKE_HEADERS, name) ? SMOKE_HEADERS[name]! : '') },
];

/** A task expression (one that reads u()) prices the whole task in US$; fixed() belongs to token expressions (new-api). */
function isTaskExpression(program: BillingProgram): boolean {
  return program.calls.has('u');
}

/** Why a program cannot price a task, or undefined. */
export function taskExpressionProblem(program: BillingProgram): string | undefined {
  return program.calls.has('fixed') ? 'a task expression gives the price of the task in US$; fixed() is for token expressions' : undefined;
}

/** The task smoke test: every usage vector (task-usage.ts) with an empty and a typical request. */
function smokeTask(program: BillingProgram): void {
  const problem = taskExpressionProblem(program);
  if (problem) throw new BillingExprError(problem);
  for (const usage of smokeUsages()) {
    for (const request of SMOKE_REQUESTS) {
      try {
        runBillingExpr(program, NO_TOKENS, { ...request, usage });
      } catch (error) {
        throw new BillingExprError(`with usage ${JSON.stringify(usage)}: ${(error as Error).message}`);
      }
    }
  }
}

/**
 * Why an expression cannot be saved, or undefined: it must compile and give a price that is not negative for
 * no tokens, a short and a long exchange, with an empty request and a typical one (new-api's smoke test); a task
 * expression for every combination of task facts instead.
 */
export function billingExprProblem(source: unknown): string | undefined {
  if (typeof source !== 'string') return 'must be a string';
  try {
    const program = compileBillingExpr(source);
    if (isTaskExpression(program)) {
      smokeTask(program);
      return undefined;
    }
    for (const size of SMOKE_SIZES) {
      const tokens: ExprTokens = { ...NO_TOKENS, p: size, c: size, len: size };
      for (const request of SMOKE_REQUESTS) {
        try {
          runBillingExpr(program, tokens, request);
        } catch (error) {
          throw new BillingExprError(`with p=c=${size}: ${(error as Error).message}`);
        }
      }
    }
    return undefined;
  } catch (error) {
    if (error instanceof BillingExprError) return error.message;
    throw error;
  }
}
