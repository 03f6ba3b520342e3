import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RedisService } from '@gw/core';
import { KvStore } from './kv-store.js';

describe('KvStore (memory)', () => {
  afterEach(() => vi.useRealTimers());
  const store = () => new KvStore({ client: undefined } as unknown as RedisService);

  it('takes a value once', async () => {
    const kv = store();
    await kv.set('a', 'v', 60);
    expect(await kv.take('a')).toBe('v');
    expect(await kv.take('a')).toBeUndefined();
  });

  it('sets only when absent, until expiry', async () => {
    vi.useFakeTimers();
    const kv = store();
    expect(await kv.setIfAbsent('l', '1', 30)).toBe(true);
    expect(await kv.setIfAbsent('l', '1', 30)).toBe(false);
    vi.advanceTimersByTime(30_001);
    expect(await kv.setIfAbsent('l', '1', 30)).toBe(true);
  });

  it('counts hits in a fixed window', async () => {
    vi.useFakeTimers();
    const kv = store();
    expect(await kv.hit('h', 10)).toBe(1);
    expect(await kv.hit('h', 10)).toBe(2);
    expect(await kv.count('h')).toBe(2);
    vi.advanceTimersByTime(10_001);
    expect(await kv.count('h')).toBe(0);
    expect(await kv.hit('h', 10)).toBe(1);
  });

  it('takes back a hit only inside a live window', async () => {
    vi.useFakeTimers();
    const kv = store();
    await kv.hit('u', 10);
    await kv.hit('u', 10);
    await kv.unhit('u');
    expect(await kv.count('u')).toBe(1);
    vi.advanceTimersByTime(10_001);
    await kv.unhit('u');
    expect(await kv.count('u')).toBe(0);
    expect(await kv.hit('u', 10)).toBe(1);
  });
});
