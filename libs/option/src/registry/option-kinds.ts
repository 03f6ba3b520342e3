/**
 * Declarations for the typed option registry. Every option is stored as a string (new-api's
 * `options` table); its kind says how that string is validated and parsed.
 */
export type OptionKind = 'bool' | 'int' | 'float' | 'string' | 'json' | 'enum';

export interface OptionDef<Kind extends OptionKind = OptionKind, Value = unknown> {
  kind: Kind;
  default: string;
  /** Never returned by GET /api/option/ (keys, tokens, secrets). */
  secret?: boolean;
  min?: number;
  max?: number;
  values?: readonly string[];
  /** Extra rule on the parsed value; returns an error message, or undefined when fine. */
  check?(value: Value): string | undefined;
  /** Phantom field carrying the parsed type. */
  readonly __value?: Value;
}

interface Range {
  min?: number;
  max?: number;
}

export const bool = (fallback: boolean): OptionDef<'bool', boolean> => ({ kind: 'bool', default: String(fallback) });

export const int = (fallback: number, range: Range = {}): OptionDef<'int', number> => ({
  kind: 'int',
  default: String(fallback),
  ...range,
});

export const float = (fallback: number, range: Range = {}): OptionDef<'float', number> => ({
  kind: 'float',
  default: String(fallback),
  ...range,
});

export const text = (fallback = '', extra: { check?: (value: string) => string | undefined } = {}): OptionDef<'string', string> => ({
  kind: 'string',
  default: fallback,
  ...extra,
});

export const secret = (): OptionDef<'string', string> => ({ kind: 'string', default: '', secret: true });

export const oneOf = <const V extends readonly string[]>(values: V, fallback: V[number]): OptionDef<'enum', V[number]> => ({
  kind: 'enum',
  default: fallback,
  values,
});

export const json = <T>(fallback: T, check?: (value: T) => string | undefined): OptionDef<'json', T> => ({
  kind: 'json',
  default: JSON.stringify(fallback),
  check,
});

export type ValueOf<D> = D extends OptionDef<OptionKind, infer V> ? V : never;

/** `{"name": number}` maps: ratios and prices. */
export function numberMap(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  for (const [name, ratio] of Object.entries(value)) {
    if (typeof ratio !== 'number' || !Number.isFinite(ratio) || ratio < 0) return `value of ${name} must be a non-negative number`;
  }
  return undefined;
}

/** `{"name": {"name": number}}` maps: group-to-group ratios. */
export function numberMapOfMaps(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  for (const [name, inner] of Object.entries(value)) {
    const problem = numberMap(inner);
    if (problem) return `value of ${name} ${problem}`;
  }
  return undefined;
}

/** `{"name": "description"}` maps: usable groups. */
export function stringMap(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  for (const [name, desc] of Object.entries(value)) {
    if (typeof desc !== 'string') return `value of ${name} must be a string`;
  }
  return undefined;
}

/** `{"name": true}` maps: per-model switches. */
export function boolMap(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  for (const [name, on] of Object.entries(value)) {
    if (typeof on !== 'boolean') return `value of ${name} must be true or false`;
  }
  return undefined;
}

/** `["name", ...]`: ordered group lists (AutoGroups). */
export function stringList(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'must be a JSON array';
  return value.every((item) => typeof item === 'string') ? undefined : 'must be a JSON array of strings';
}

/** `{"name": {"name": "description"}}` maps: per-group usable-group changes. */
export function stringMapOfMaps(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  for (const [name, inner] of Object.entries(value)) {
    const problem = stringMap(inner);
    if (problem) return `value of ${name} ${problem}`;
  }
  return undefined;
}

export function jsonObject(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? undefined : 'must be a JSON object';
}

export function httpUrlOrEmpty(value: string): string | undefined {
  if (value === '') return undefined;
  return /^https?:\/\/[^\s]+$/i.test(value) ? undefined : 'must start with http:// or https://';
}
