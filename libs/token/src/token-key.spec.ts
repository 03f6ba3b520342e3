import { describe, expect, it } from 'vitest';
import { generateTokenKey, maskKey, parsePresentedKey, randomAlphanumeric, sameKey } from './token-key.js';

describe('token keys', () => {
  it('generates 48 alphanumerics, all different', () => {
    const keys = new Set(Array.from({ length: 200 }, generateTokenKey));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9]{48}$/);
  });

  it('uses every character of the alphabet about equally (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (const c of randomAlphanumeric(62 * 2000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 2000 expected per character; a biased generator (byte % 62) over-represents the first 8 by ~25%.
    for (const n of counts.values()) expect(n).toBeGreaterThan(1700);
    for (const n of counts.values()) expect(n).toBeLessThan(2300);
  });

  it('masks like new-api', () => {
    expect(maskKey('abcdEFGHijklmnopqrstuvwxyz0123456789ABCDEFGHwxyz')).toBe('abcd**********wxyz');
    expect(maskKey('abcdefgh')).toBe('ab****gh');
    expect(maskKey('abc')).toBe('***');
    expect(maskKey('')).toBe('');
  });

  it('reads every presented form', () => {
    expect(parsePresentedKey('Bearer sk-abc')).toEqual({ key: 'abc' });
    expect(parsePresentedKey('bearer abc')).toEqual({ key: 'abc' });
    expect(parsePresentedKey('sk-abc-12')).toEqual({ key: 'abc', channel: '12' });
    expect(parsePresentedKey('abc')).toEqual({ key: 'abc' });
    expect(parsePresentedKey('Bearer ')).toBeUndefined();
    expect(parsePresentedKey(undefined)).toBeUndefined();
    expect(parsePresentedKey('sk-')).toBeUndefined();
  });

  it('compares keys in constant time', () => {
    expect(sameKey('abc', 'abc')).toBe(true);
    expect(sameKey('abc', 'abd')).toBe(false);
    expect(sameKey('abc', 'abcd')).toBe(false);
  });
});
