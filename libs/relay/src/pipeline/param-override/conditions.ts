import { getPath, type Json, textOf } from './json-path.js';

/** One condition of an operation (new-api's ConditionOperation). */
export interface Condition {
  path: string;
  mode: string;
  value?: unknown;
  invert?: boolean;
  /** What a missing value counts as: true passes, false (the default) fails. */
  pass_missing_key?: boolean;
}

/** A configuration the relay cannot apply (a bad condition or operation): the channel's error, not the client's. */
export class OverrideConfigError extends Error {}

type Kind = 'null' | 'boolean' | 'number' | 'string' | 'json';

function kindOf(value: Json): Kind {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  return 'json';
}

function equal(actual: Json, expected: Json): boolean {
  const a = kindOf(actual);
  const b = kindOf(expected);
  if (a === 'null' || b === 'null') return a === b;
  if (a !== b) throw new OverrideConfigError(`compare for different types, got ${a} and ${b}`);
  return a === 'json' ? JSON.stringify(actual) === JSON.stringify(expected) : actual === expected;
}

function numeric(actual: Json, expected: Json, mode: string): boolean {
  if (typeof actual !== 'number' || typeof expected !== 'number')
    throw new OverrideConfigError(`numeric comparison requires both values to be numbers, got ${kindOf(actual)} and ${kindOf(expected)}`);
  if (mode === 'gt') return actual > expected;
  if (mode === 'gte') return actual >= expected;
  if (mode === 'lt') return actual < expected;
  return actual <= expected;
}

function compare(actual: Json, expected: Json, mode: string): boolean {
  switch (mode) {
    case 'full':
      return equal(actual, expected);
    case 'prefix':
      return textOf(actual).startsWith(textOf(expected));
    case 'suffix':
      return textOf(actual).endsWith(textOf(expected));
    case 'contains':
      return textOf(actual).includes(textOf(expected));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return numeric(actual, expected, mode);
    default:
      throw new OverrideConfigError(`unsupported comparison mode: ${mode}`);
  }
}

/** A condition holds on the body, or on the context (model, request headers, retry...) when the body lacks the path. */
function holds(body: Json, context: Json, condition: Condition): boolean {
  let found = getPath(body, condition.path);
  if (!found.found) found = getPath(context, condition.path);
  if (!found.found) return condition.pass_missing_key === true;
  const expected = (condition.value === undefined ? null : JSON.parse(JSON.stringify(condition.value))) as Json;
  let result: boolean;
  try {
    result = compare(found.value as Json, expected, String(condition.mode).toLowerCase());
  } catch (error) {
    throw new OverrideConfigError(`comparison failed for path ${condition.path}: ${(error as Error).message}`);
  }
  return condition.invert ? !result : result;
}

/** All (logic AND) or any (OR, the default) of the conditions hold; none at all always holds. */
export function conditionsHold(body: Json, context: Json, conditions: readonly Condition[], logic: string): boolean {
  if (conditions.length === 0) return true;
  const results = conditions.map((condition) => holds(body, context, condition));
  return logic.toUpperCase() === 'AND' ? results.every(Boolean) : results.some(Boolean);
}

/** Conditions as configured: a list of {path, mode, value, invert, pass_missing_key}, or an object of path → value (full match). */
export function parseConditions(raw: unknown): Condition[] {
  if (Array.isArray(raw)) {
    return raw.map((item) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new OverrideConfigError('condition must be object');
      const { path, mode, value, invert, pass_missing_key } = item as Record<string, unknown>;
      if (typeof path !== 'string' || !path.trim() || typeof mode !== 'string' || !mode.trim())
        throw new OverrideConfigError('condition path/mode is required');
      return {
        path,
        mode,
        value,
        invert: invert === true,
        pass_missing_key: pass_missing_key === true,
      };
    });
  }
  if (typeof raw === 'object' && raw !== null) {
    const conditions = Object.entries(raw)
      .filter(([path]) => path.trim())
      .map(([path, value]) => ({ path: path.trim(), mode: 'full', value }));
    if (conditions.length === 0) throw new OverrideConfigError('conditions object must contain at least one key');
    return conditions;
  }
  throw new OverrideConfigError('conditions must be an array or object');
}
