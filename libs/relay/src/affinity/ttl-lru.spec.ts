import { describe, expect, it } from 'vitest';
import { TtlLru } from './ttl-lru.js';

describe('TtlLru', () => {
  it('expires entries on its clock and evicts the least recently used when full', () => {
    let now = 0;
    const lru = new TtlLru<number>(2, () => now);
    lru.set('a', 1, 100);
    lru.set('b', 2, 1000);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3, 1000);
    expect(lru.keys()).toEqual(['a', 'c']);
    now = 150;
    expect(lru.get('a')).toBeUndefined();
    expect(lru.keys()).toEqual(['c']);
    lru.resize(0);
    expect(lru.keys()).toEqual([]);
  });
});
