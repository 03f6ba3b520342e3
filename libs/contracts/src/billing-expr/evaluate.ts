import { goRegExp } from '../go-regexp.js';
import { BillingExprError, type ExprNode } from './parse.js';
import { type TaskUsage, usageFact } from './task-usage.js';

/** The token counts an expression prices (see tokens.ts for how usage becomes these). */
export interface ExprTokens {
  /** Prompt tokens not priced by a variable of their own. */
  p: number;
  /** Completion tokens not priced by a variable of their own. */
  c: number;
  /** The whole input context, for tier conditions. */
  len: number;
  cr: number;
  cc: number;
  cc1h: number;
  img: number;
  img_o: number;
  img_cr: number;
  ai: number;
  ao: number;
  /** Pictures asked for (image requests; 1 otherwise): a multiplier a fixed() price may take. */
  image_count: number;
}

/** No tokens at all (a task expression's tokens; the base of a token count). */
export const NO_TOKENS: Readonly<ExprTokens> = {
  p: 0,
  c: 0,
  len: 0,
  cr: 0,
  cc: 0,
  cc1h: 0,
  img: 0,
  img_o: 0,
  img_cr: 0,
  ai: 0,
  ao: 0,
  image_count: 1,
};

/** The names an expression may use for counts: those of ExprTokens. */
export const TOKEN_VARIABLES = Object.keys(NO_TOKENS) as readonly (keyof ExprTokens)[];

/** What a billing expression may read of the request. */
export interface ExprRequest {
  /** A JSON path of the request body (gjson syntax); null when absent. */
  param(path: string): unknown;
  /** A request header's value; '' when absent. */
  header(name: string): string;
  /** The clock hour()/minute()/... read; now when absent. */
  now?: Date;
  /** A task's usage facts, which u() reads (task-usage.ts); absent on token relays. */
  usage?: TaskUsage;
  /** Pictures an image request asks for (image_count; 1 when absent). */
  imageCount?: number;
}

export interface ExprRun {
  cost: number;
  /** The name given to the last tier() the run went through ('' when none). */
  tier: string;
  /** Per request rule of the program (index.ts), whether its condition held in this run. */
  rules: boolean[];
  /** The US$ of the tier when it was priced per request (`tier(name, fixed(usd))`); undefined when by tokens. */
  fixedPrice?: number;
}

type Value = unknown;

const DATE_PARTS = { hour: 'hour', minute: 'minute', weekday: 'weekday', month: 'month', day: 'day' } as const;
const WEEKDAYS: Readonly<Record<string, number>> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const clockFormats = new Map<string, Intl.DateTimeFormat>();

function clockIn(zone: string, now: Date): Record<string, number> {
  let format = clockFormats.get(zone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone || 'UTC',
        hourCycle: 'h23',
        hour: 'numeric',
        minute: 'numeric',
        weekday: 'short',
        month: 'numeric',
        day: 'numeric',
      });
    } catch {
      throw new BillingExprError(`unknown time zone ${JSON.stringify(zone)}`);
    }
    if (clockFormats.size < 64) clockFormats.set(zone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(now)) {
    if (part.type === 'weekday') parts.weekday = WEEKDAYS[part.value] ?? 0;
    else if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return parts;
}

/** Patterns are literals of the expression (compile.ts): few, compiled once. */
const patterns = new Map<string, RegExp>();
function patternOf(source: string): RegExp {
  let pattern = patterns.get(source);
  if (!pattern) {
    pattern = goRegExp(source);
    if (patterns.size < 256) patterns.set(source, pattern);
  }
  return pattern;
}

/**
 * Headers that carry the caller's credentials: an expression never reads them (a price must not depend on a key,
 * and a task's frozen request must not keep one in the database).
 */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'mj-api-secret',
  'cookie',
]);

const typeName = (value: Value) => (value === null || value === undefined ? 'nil' : Array.isArray(value) ? 'array' : typeof value);

function number(value: Value, what: string): number {
  if (typeof value !== 'number') throw new BillingExprError(`${what} needs a number, got ${typeName(value)}`);
  return value;
}

function bool(value: Value, what: string): boolean {
  if (typeof value !== 'boolean') throw new BillingExprError(`${what} needs true or false, got ${typeName(value)}`);
  return value;
}

function equal(a: Value, b: Value): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a !== typeof b) return false;
  if (typeof a === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

function compare(op: string, a: Value, b: Value): boolean {
  const both = (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!both) throw new BillingExprError(`${op} compares two numbers or two strings, got ${typeName(a)} and ${typeName(b)}`);
  const x = a as number | string;
  const y = b as number | string;
  return op === '<' ? x < y : op === '>' ? x > y : op === '<=' ? x <= y : x >= y;
}

/** Runs a checked expression tree (compile.ts) for these tokens and this request. */
export function evaluateBillingExpr(
  tree: ExprNode,
  tokens: ExprTokens,
  request: ExprRequest,
  ruleOf: ReadonlyMap<ExprNode, number> = new Map(),
): ExprRun {
  let tier = '';
  let fixedPrice: number | undefined;
  const rules: boolean[] = new Array(ruleOf.size).fill(false);
  const now = request.now ?? new Date();

  function call(name: string, args: ExprNode[]): Value {
    const values = args.map(run);
    switch (name) {
      case 'tier': {
        tier = String(values[0]);
        const leaf = args[1];
        fixedPrice = leaf?.kind === 'call' && leaf.name === 'fixed' && leaf.args[0]?.kind === 'num' ? leaf.args[0].value : undefined;
        return number(values[1], 'tier()');
      }
      case 'fixed':
        // A US$ price per request, in the expression's unit (US$ per million tokens).
        return number(values[0], 'fixed()') * 1_000_000;
      case 'param':
        return request.param(String(values[0])) ?? null;
      case 'header': {
        const name = String(values[0]).toLowerCase();
        return CREDENTIAL_HEADERS.has(name) ? '' : request.header(name);
      }
      case 'u':
        if (!request.usage) throw new BillingExprError('u() reads the usage of a task; this request is not one');
        return usageFact(request.usage, String(values[0]));
      case 'has':
        return typeof values[0] === 'string' && typeof values[1] === 'string' && values[0].includes(values[1]);
      case 'max':
      case 'min': {
        const numbers = values.map((v) => number(v, `${name}()`));
        return name === 'max' ? Math.max(...numbers) : Math.min(...numbers);
      }
      case 'abs':
        return Math.abs(number(values[0], 'abs()'));
      case 'ceil':
        return Math.ceil(number(values[0], 'ceil()'));
      case 'floor':
        return Math.floor(number(values[0], 'floor()'));
      default: {
        const part = DATE_PARTS[name as keyof typeof DATE_PARTS];
        if (!part) throw new BillingExprError(`unknown function ${name}()`);
        return clockIn(String(values[0] ?? ''), now)[part] ?? 0;
      }
    }
  }

  function binary(op: string, left: ExprNode, right: ExprNode): Value {
    if (op === '&&') return bool(run(left), '&&') && bool(run(right), '&&');
    if (op === '||') return bool(run(left), '||') || bool(run(right), '||');
    if (op === '??') return run(left) ?? run(right);
    const a = run(left);
    const b = run(right);
    switch (op) {
      case '+':
        if (typeof a === 'string' && typeof b === 'string') return a + b;
        return number(a, '+') + number(b, '+');
      case '-':
        return number(a, '-') - number(b, '-');
      case '*':
        return number(a, '*') * number(b, '*');
      case '/':
        return number(a, '/') / number(b, '/');
      case '%':
        return number(a, '%') % number(b, '%');
      case '**':
        return number(a, '**') ** number(b, '**');
      case '==':
        return equal(a, b);
      case '!=':
        return !equal(a, b);
      case 'contains':
        return typeof a === 'string' && typeof b === 'string' && a.includes(b);
      case 'startsWith':
        return typeof a === 'string' && typeof b === 'string' && a.startsWith(b);
      case 'endsWith':
        return typeof a === 'string' && typeof b === 'string' && a.endsWith(b);
      case 'matches':
        return typeof a === 'string' && typeof b === 'string' && patternOf(b).test(a);
      case 'in':
        if (Array.isArray(b)) return b.some((item) => equal(a, item));
        return typeof b === 'object' && b !== null && typeof a === 'string' && Object.hasOwn(b, a);
      default:
        return compare(op, a, b);
    }
  }

  function run(node: ExprNode): Value {
    switch (node.kind) {
      case 'num':
      case 'str':
      case 'bool':
        return node.value;
      case 'nil':
        return null;
      case 'array':
        return node.items.map(run);
      case 'var':
        return tokens[node.name as keyof ExprTokens] ?? 0;
      case 'call':
        return call(node.name, node.args);
      case 'unary': {
        const value = run(node.arg);
        if (node.op === '!') return !bool(value, '!');
        return node.op === '-' ? -number(value, '-') : number(value, '+');
      }
      case 'binary':
        return binary(node.op, node.left, node.right);
      case 'cond': {
        const holds = bool(run(node.test), '?:');
        const rule = holds ? ruleOf.get(node) : undefined;
        if (rule !== undefined) rules[rule] = true;
        return holds ? run(node.then) : run(node.else);
      }
    }
  }

  const cost = run(tree);
  if (typeof cost !== 'number' || !Number.isFinite(cost))
    throw new BillingExprError(`the expression gave ${typeName(cost)} ${String(cost)}, not a price`);
  if (cost < 0) throw new BillingExprError(`the expression gave a negative price (${cost})`);
  return fixedPrice === undefined ? { cost, tier, rules } : { cost, tier, rules, fixedPrice };
}
