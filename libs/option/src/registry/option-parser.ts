import type { OptionDef } from './option-kinds.js';

export type ParseResult = { ok: true; value: unknown } | { ok: false; message: string };

const INT = /^-?\d+$/;
const FLOAT = /^-?(\d+\.?\d*|\.\d+)(e-?\d+)?$/i;

/**
 * Validates and parses one option value from its stored string form. Messages name the key so the
 * console's toast says what to fix.
 */
export function parseOptionValue(key: string, def: OptionDef, raw: string): ParseResult {
  switch (def.kind) {
    case 'bool':
      if (raw !== 'true' && raw !== 'false') return fail(`${key} must be 'true' or 'false'`);
      return ok(raw === 'true', def, key);
    case 'int': {
      if (!INT.test(raw.trim())) return fail(`${key} must be an integer`);
      return ranged(key, def, Number(raw));
    }
    case 'float': {
      if (!FLOAT.test(raw.trim())) return fail(`${key} must be a number`);
      return ranged(key, def, Number(raw));
    }
    case 'enum':
      if (!def.values?.includes(raw)) return fail(`${key} must be one of ${def.values?.join(', ')}`);
      return ok(raw, def, key);
    case 'json': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return fail(`${key} is not a valid JSON string`);
      }
      return ok(parsed, def, key);
    }
    case 'string':
      return ok(raw, def, key);
  }
}

function ranged(key: string, def: OptionDef, value: number): ParseResult {
  if (!Number.isFinite(value)) return fail(`${key} must be a finite number`);
  if (def.min !== undefined && value < def.min) return fail(`${key} must be at least ${def.min}`);
  if (def.max !== undefined && value > def.max) return fail(`${key} must be at most ${def.max}`);
  return ok(value, def, key);
}

function ok(value: unknown, def: OptionDef, key: string): ParseResult {
  const problem = def.check?.(value as never);
  return problem ? fail(`${key} ${problem}`) : { ok: true, value };
}

function fail(message: string): ParseResult {
  return { ok: false, message };
}
