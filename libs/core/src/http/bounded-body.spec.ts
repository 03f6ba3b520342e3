import { describe, expect, it } from 'vitest';
import { jsonTooDeep } from './bounded-body.js';

const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

describe('jsonTooDeep', () => {
  it('counts object and array nesting against the limit', () => {
    expect(jsonTooDeep(Buffer.from(nest(10)), 10)).toBe(false);
    expect(jsonTooDeep(Buffer.from(nest(11)), 10)).toBe(true);
    expect(jsonTooDeep(Buffer.from(`{"a":${'{"b":'.repeat(11)}1${'}'.repeat(11)}}`), 10)).toBe(true);
    expect(jsonTooDeep(Buffer.from(`[${Array(50).fill(nest(5)).join(',')}]`), 10)).toBe(false);
  });

  it('ignores brackets inside strings, including after escaped quotes and backslashes', () => {
    const text = JSON.stringify({ a: '[[[[[[[[[[[[', b: 'say \\"[[[[[[[[[[[[', c: 'end\\\\', d: ['{{{{{{{{{{{{{'] });
    expect(jsonTooDeep(Buffer.from(text), 3)).toBe(false);
    // The quote after `\\\\` closes the string, so the brackets after it count.
    expect(jsonTooDeep(Buffer.from(`["x\\\\",${nest(5)}]`), 5)).toBe(true);
    // An unterminated string: the parser reports it, not the depth check.
    expect(jsonTooDeep(Buffer.from(`["${'['.repeat(40)}`), 3)).toBe(false);
  });
});
