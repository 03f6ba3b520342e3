import { describe, expect, it } from 'vitest';
import { pick } from './custom-oauth.strategy.js';

describe('pick (user info field paths)', () => {
  it('reads top-level and dotted paths, numbers as strings', () => {
    const doc = { sub: 'abc', id: 42, data: { user: { id: 7, name: 'Ann' } }, empty: '', list: [1] };
    expect(pick(doc, 'sub')).toBe('abc');
    expect(pick(doc, 'id')).toBe('42');
    expect(pick(doc, 'data.user.id')).toBe('7');
    expect(pick(doc, 'data.user.name')).toBe('Ann');
  });

  it('gives undefined for missing, empty or non-scalar values', () => {
    const doc = { empty: '', obj: { a: 1 }, list: [1], nan: Number.NaN };
    for (const path of ['missing', 'empty', 'obj', 'list', 'nan', 'obj.a.b', '']) expect(pick(doc, path)).toBeUndefined();
    expect(pick(null, 'a')).toBeUndefined();
  });
});
