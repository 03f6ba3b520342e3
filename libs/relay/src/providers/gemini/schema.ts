import type { Json } from '../types.js';

/**
 * JSON Schema (what OpenAI and Anthropic tools and response formats carry) as Gemini's Schema object, an
 * OpenAPI 3.0 subset. Gemini answers 400 ("Invalid JSON payload received. Unknown name ...") to any other
 * field, so `$schema`, `additionalProperties`, `strict`, `const`, ... are dropped, as new-api does with the same
 * allow-list. On top of new-api: local `$ref`s (`#/$defs/x`, `#/definitions/x`, as pydantic and zod write them)
 * are inlined, `oneOf` is read as `anyOf`, and a type list `["string", "null"]` is a nullable STRING.
 */

const ALLOWED = new Set([
  'anyOf',
  'default',
  'description',
  'enum',
  'example',
  'format',
  'items',
  'maxItems',
  'maxLength',
  'maxProperties',
  'maximum',
  'minItems',
  'minLength',
  'minProperties',
  'minimum',
  'nullable',
  'pattern',
  'properties',
  'propertyOrdering',
  'required',
  'title',
  'type',
]);
const TYPES: Record<string, string> = {
  object: 'OBJECT',
  array: 'ARRAY',
  string: 'STRING',
  integer: 'INTEGER',
  number: 'NUMBER',
  boolean: 'BOOLEAN',
};
/** Deeper schemas are cut (a hostile body must not recurse without end); refs are inlined at most this often. */
const MAX_DEPTH = 32;
const MAX_REF_EXPANSIONS = 256;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

interface Walk {
  root: Json;
  expansions: number;
}

/** A tool's parameters or a response schema, cleaned for Gemini; undefined when nothing usable is left. */
export function geminiSchema(schema: unknown): Json | undefined {
  if (!isObject(schema)) return undefined;
  return clean(schema, { root: schema, expansions: 0 }, 0, new Set());
}

/**
 * Function parameters for a Gemini functionDeclaration: the cleaned schema, or none at all for a function
 * without arguments (Gemini refuses an OBJECT whose properties are empty; new-api drops them the same way).
 */
export function geminiParameters(parameters: unknown): Json | undefined {
  const cleaned = geminiSchema(parameters);
  if (!cleaned) return undefined;
  if (isObject(cleaned.properties) && Object.keys(cleaned.properties).length === 0) return undefined;
  if (cleaned.type === 'OBJECT' && cleaned.properties === undefined) return undefined;
  return cleaned;
}

function resolveRef(ref: string, walk: Walk): Json | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const defs = walk.root[match[1]!];
  const name = match[2]!.replace(/~1/g, '/').replace(/~0/g, '~');
  return isObject(defs) && isObject(defs[name]) ? defs[name] : undefined;
}

function clean(schema: Json, walk: Walk, depth: number, refs: Set<string>): Json {
  if (typeof schema.$ref === 'string' && walk.expansions < MAX_REF_EXPANSIONS && !refs.has(schema.$ref)) {
    const target = resolveRef(schema.$ref, walk);
    if (target) {
      walk.expansions++;
      const { $ref: _ref, ...siblings } = schema;
      return clean({ ...target, ...siblings }, walk, depth, new Set([...refs, schema.$ref]));
    }
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) if (ALLOWED.has(key)) out[key] = value;
  if (out.anyOf === undefined && Array.isArray(schema.oneOf)) out.anyOf = schema.oneOf;
  normaliseType(out);
  if (depth >= MAX_DEPTH) {
    delete out.properties;
    delete out.items;
    delete out.anyOf;
    return out;
  }
  if (isObject(out.properties)) {
    const properties: Json = {};
    for (const [name, value] of Object.entries(out.properties))
      properties[name] = isObject(value) ? clean(value, walk, depth + 1, refs) : {};
    out.properties = properties;
    if (Array.isArray(out.required)) out.required = out.required.filter((name: unknown) => typeof name === 'string' && name in properties);
  } else delete out.properties;
  // Tuple-style items are not in Gemini's Schema: the first item's schema stands for all.
  const items = Array.isArray(out.items) ? out.items[0] : out.items;
  if (isObject(items)) out.items = clean(items, walk, depth + 1, refs);
  else delete out.items;
  if (Array.isArray(out.anyOf)) {
    const variants = out.anyOf.filter(isObject).map((v: Json) => clean(v, walk, depth + 1, refs));
    // A variant that is only `null` is what nullable says.
    const real = variants.filter((v: Json) => !(v.nullable === true && v.type === undefined && Object.keys(v).length === 1));
    if (real.length < variants.length) out.nullable = true;
    if (real.length === 1 && out.type === undefined) {
      delete out.anyOf;
      Object.assign(out, { ...real[0], ...out });
    } else if (real.length) out.anyOf = real;
    else delete out.anyOf;
  }
  return out;
}

/** `type` as Gemini's enum name; a list with "null" is that type, nullable; "null" alone is nullable only. */
function normaliseType(schema: Json): void {
  const raw = schema.type;
  if (raw === undefined || raw === null) {
    delete schema.type;
    return;
  }
  const names = (Array.isArray(raw) ? raw : [raw]).filter((t): t is string => typeof t === 'string').map((t) => t.trim().toLowerCase());
  if (names.includes('null')) schema.nullable = true;
  const chosen = names.find((t) => t !== 'null');
  if (chosen) schema.type = TYPES[chosen] ?? chosen.toUpperCase();
  else delete schema.type;
}
