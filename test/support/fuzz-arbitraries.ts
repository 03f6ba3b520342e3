import fc from 'fast-check';
import { z } from 'zod';

/**
 * Generators for the fuzz suite: hostile scalars (threats M2, F10), JSON values, and request bodies built
 * from a route's zod contract (through its JSON Schema), so most bodies get past the first field check and
 * reach the rules behind it.
 */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1e999',
  'NaN',
  'true',
  'null',
  "' OR '1'='1",
  '"; DROP TABLE users; --',
  '%',
  '%00',
  '\u0000',
  '\ud800',
  '\u202eRTL',
  'zero\u200bwidth',
  '😀😀😀',
  '__proto__',
  'constructor',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  `${'$'}{jndi:ldap://x}`,
  '%s%n%x',
  'a'.repeat(5000),
];

export const HOSTILE_NUMBERS = [0, -1, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 + 1, 2 ** 63, 2 ** 64, 1e308, -1e308, 0.5, -0.5, 1e-9];

export const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
);
export const hostileNumber = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
export const hostileScalar = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null), hostileNumber.map(String));
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileScalar },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(hostileScalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileScalar, { maxKeys: 4 }) },
);

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
};

/** An arbitrary for values of a JSON Schema: mostly well-formed, each leaf sometimes hostile. */
function fromJsonSchema(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 5) return hostileJson;
  const variants = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (variants?.length) return fc.oneof(...variants.map((v) => fromJsonSchema(v, depth + 1)));
  if (schema.enum?.length)
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: hostileScalar });
  if ('const' in schema) return fc.oneof({ weight: 4, arbitrary: fc.constant(schema.const) }, { weight: 1, arbitrary: hostileScalar });
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => fromJsonSchema({ ...schema, type }, depth)));
  const leaf = (arbitrary: fc.Arbitrary<unknown>) => fc.oneof({ weight: 3, arbitrary }, { weight: 1, arbitrary: hostileScalar });
  switch (schema.type) {
    case 'object': {
      const shape = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, value]) => [key, fromJsonSchema(value, depth + 1)]),
      );
      return fc.oneof({ weight: 6, arbitrary: fc.record(shape, { requiredKeys: [] }) }, { weight: 1, arbitrary: hostileJson });
    }
    case 'array':
      return leaf(fc.array(fromJsonSchema(schema.items, depth + 1), { maxLength: 3 }));
    case 'string':
      return leaf(fc.string({ maxLength: Math.min(schema.maxLength ?? 40, 40) }));
    case 'integer':
      return leaf(fc.integer({ min: Math.max(schema.minimum ?? -1000, -(2 ** 31)), max: Math.min(schema.maximum ?? 100_000, 2 ** 31) }));
    case 'number':
      return leaf(fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 }));
    case 'boolean':
      return leaf(fc.boolean());
    case 'null':
      return fc.constant(null);
    default:
      return hostileJson;
  }
}

/** Bodies for a route validated by `schema`: from its JSON Schema when zod can express it, else hostile JSON. */
export function bodyFromContract(schema: z.ZodType): fc.Arbitrary<unknown> {
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema;
  } catch {
    return hostileJson;
  }
  return fromJsonSchema(json);
}

const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('user', 'system', 'assistant', 'tool'), hostileString),
    content: fc.oneof(fc.string({ maxLength: 40 }), hostileJson),
  },
  { requiredKeys: [] },
);

/** Relay bodies: OpenAI, Anthropic and Gemini fields, each well-formed or hostile. */
export function relayBody(model: string): fc.Arbitrary<unknown> {
  const number = fc.oneof(fc.integer({ min: 1, max: 64 }), hostileNumber, hostileNumber.map(String));
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record(
        {
          model: fc.oneof({ weight: 4, arbitrary: fc.constant(model) }, { weight: 1, arbitrary: hostileScalar }),
          messages: fc.oneof(
            { weight: 3, arbitrary: fc.array(message, { minLength: 1, maxLength: 3 }) },
            { weight: 1, arbitrary: hostileJson },
          ),
          stream: fc.oneof(fc.boolean(), hostileScalar),
          max_tokens: number,
          n: number,
          temperature: fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), hostileScalar),
          prompt: fc.oneof(fc.string({ maxLength: 30 }), hostileJson),
          input: fc.oneof(fc.string({ maxLength: 30 }), hostileJson),
          contents: fc.oneof(fc.constant([{ role: 'user', parts: [{ text: 'hi' }] }]), hostileJson),
          size: fc.oneof(fc.constantFrom('1024x1024', '256x256'), hostileScalar),
          tools: hostileJson,
          stream_options: hostileJson,
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: hostileJson },
  );
}

/** A path parameter: ids that exist, ids that cannot, and strings no id looks like. */
export const pathParam = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('1', '2', '3') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('0', '-1', '999999999999', '1e309', '1.5', 'NaN', '0x10', "1' OR '1'='1", '__proto__', '%00', 'a b'),
  },
  // '.' and '..' are dot-segments: the URL parser folds them away, and the request reaches another path.
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 20 }).filter((value) => value !== '.' && value !== '..') },
);

const QUERY_KEYS = [
  'p',
  'page_size',
  'ps',
  'size',
  'keyword',
  'id',
  'user_id',
  'token_name',
  'model_name',
  'username',
  'type',
  'group',
  'status',
  'start_timestamp',
  'end_timestamp',
  'channel',
  'order',
  'key',
  'tag',
];

export const query = fc
  .dictionary(fc.constantFrom(...QUERY_KEYS), fc.oneof(hostileString, hostileNumber.map(String)), { maxKeys: 4 })
  .map((entries) => new URLSearchParams(entries).toString());

/** How the body travels: well-formed JSON mostly, sometimes cut short, mislabelled or as a form. */
export const encoding = fc.constantFrom('json', 'json', 'json', 'json', 'truncated', 'text', 'form');
