import { describe, expect, it } from 'vitest';
import { StoredTextCache } from './stored-text-cache.js';

const text = (n: number, fill = 'x') => Buffer.from(fill.repeat(n));

describe('StoredTextCache', () => {
  it('gives a text back only under the generation it was kept with', () => {
    const cache = new StoredTextCache(1000);
    const body = text(10);
    cache.set('username', 3600, 4, body);
    expect(cache.get('username', 3600, 4)).toBe(body);
    expect(cache.get('username', 3600, 5)).toBeUndefined();
    expect(cache.get('model', 3600, 4)).toBeUndefined();
  });

  it('replaces an hour kept under an older generation, counting its bytes once', () => {
    const cache = new StoredTextCache(1000);
    cache.set('model', 0, 1, text(100));
    cache.set('model', 0, 2, text(40, 'y'));
    expect(cache.size).toBe(40);
    expect(cache.get('model', 0, 1)).toBeUndefined();
    expect(cache.get('model', 0, 2)?.toString()).toBe('y'.repeat(40));
  });

  it('drops the least recently used texts past its budget, and never keeps a text larger than the budget', () => {
    const cache = new StoredTextCache(100);
    cache.set('model', 0, 1, text(40));
    cache.set('model', 3600, 1, text(40));
    expect(cache.get('model', 0, 1)).toBeDefined();
    cache.set('model', 7200, 1, text(40));
    expect(cache.get('model', 3600, 1)).toBeUndefined();
    expect(cache.get('model', 0, 1)).toBeDefined();
    expect(cache.get('model', 7200, 1)).toBeDefined();
    expect(cache.size).toBe(80);
    cache.set('model', 10_800, 1, text(101));
    expect(cache.get('model', 10_800, 1)).toBeUndefined();
    expect(cache.size).toBe(80);
  });
});
