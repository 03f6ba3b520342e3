import { describe, expect, it } from 'vitest';
import { onFirstUse, requireOnFirstUse } from './on-first-use.js';

describe('onFirstUse', () => {
  it('loads once, on the first call, and shares that load with every later call', async () => {
    let loads = 0;
    const load = onFirstUse(async () => ({ n: ++loads }));
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([load(), load()]);
    expect(loads).toBe(1);
    expect(a).toBe(b);
    expect(await load()).toBe(a);
  });

  it('tries again after a failed load instead of keeping the failure', async () => {
    let calls = 0;
    const load = onFirstUse(async () => {
      if (++calls === 1) throw new Error('not yet');
      return 'loaded';
    });
    await expect(load()).rejects.toThrow('not yet');
    await expect(load()).resolves.toBe('loaded');
    expect(calls).toBe(2);
  });

  it('requires a CommonJS package synchronously, once', () => {
    const load = requireOnFirstUse<typeof import('ioredis')>('ioredis');
    const first = load();
    expect(typeof first.Redis).toBe('function');
    expect(load()).toBe(first);
  });
});
