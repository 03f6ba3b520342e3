import { SchedulerRegistry } from '@nestjs/schedule';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { RedisService } from '@gw/core';
import type { OptionService } from '@gw/option';
import { ModelRateLimiter, ModelRateLimitError } from './model-rate-limiter.js';
import { redisWindow } from './redis-window.js';
import { SlidingWindowLog } from './sliding-window.js';

const MINUTE = 60_000;

function limiter(values: Record<string, unknown>, redis: Partial<RedisService> = { ready: undefined }) {
  const options = {
    ModelRequestRateLimitEnabled: true,
    ModelRequestRateLimitCount: 0,
    ModelRequestRateLimitSuccessCount: 1000,
    ModelRequestRateLimitDurationMinutes: 1,
    ModelRequestRateLimitGroup: {},
    ...values,
  };
  return new ModelRateLimiter(
    { get: (key: string) => options[key as keyof typeof options] } as unknown as OptionService,
    redis as RedisService,
    new SchedulerRegistry(),
  );
}

describe('SlidingWindowLog', () => {
  it('lets max requests through per window, then frees slots as they age out', () => {
    const log = new SlidingWindowLog();
    expect([0, 10, 20].map((t) => log.take('u', 2, 100, t))).toEqual([true, true, false]);
    expect(log.take('u', 2, 100, 99)).toBe(false);
    expect(log.take('u', 2, 100, 100)).toBe(true);
    expect(log.fits('u', 2, 100, 105)).toBe(false);
    expect(log.fits('u', 2, 100, 111)).toBe(true);
  });

  it('records successes beyond max without growing past it, and sweeps idle keys', () => {
    const log = new SlidingWindowLog();
    for (let t = 0; t < 10; t++) log.record('s', 3, 1000, t);
    expect(log.fits('s', 3, 1000, 10)).toBe(false);
    expect(log.fits('s', 4, 1000, 10)).toBe(true);
    log.take('other', 5, 1000, 500);
    log.sweep(1000, 1009);
    expect(log.size).toBe(1);
    log.sweep(1000, 2000);
    expect(log.size).toBe(0);
  });
});

describe('ModelRateLimiter (memory)', () => {
  it('refuses the request after the total count, failed requests included, with a 429', async () => {
    const rl = limiter({ ModelRequestRateLimitCount: 2 });
    await rl.check(1, 'default');
    await rl.check(1, 'default');
    const error = await rl.check(1, 'default').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRateLimitError);
    expect(error).toMatchObject({ relayStatus: 429, message: expect.stringContaining('at most 2 requests in 1 minutes') });
    await expect(rl.check(2, 'default')).resolves.toBeUndefined();
  });

  it('counts successes only when recorded', async () => {
    const rl = limiter({ ModelRequestRateLimitSuccessCount: 2 });
    for (let i = 0; i < 5; i++) await rl.check(1, 'default');
    rl.recordSuccess(1, 'default');
    rl.recordSuccess(1, 'default');
    await expect(rl.check(1, 'default')).rejects.toThrow(/request limit: at most 2 requests/);
  });

  it('uses the per-group override [total, success] and ignores malformed ones', async () => {
    const rl = limiter({ ModelRequestRateLimitCount: 100, ModelRequestRateLimitGroup: { vip: [1, 10], bad: ['x', 1] } });
    await rl.check(1, 'vip');
    await expect(rl.check(1, 'vip')).rejects.toBeInstanceOf(ModelRateLimitError);
    for (let i = 0; i < 5; i++) await rl.check(2, 'bad');
  });

  it('does nothing when disabled or with a 0-minute window', async () => {
    for (const values of [{ ModelRequestRateLimitEnabled: false }, { ModelRequestRateLimitDurationMinutes: 0 }]) {
      const rl = limiter({ ModelRequestRateLimitCount: 1, ModelRequestRateLimitSuccessCount: 1, ...values });
      for (let i = 0; i < 3; i++) {
        await rl.check(1, 'default');
        rl.recordSuccess(1, 'default');
      }
      await expect(rl.check(1, 'default')).resolves.toBeUndefined();
    }
  });

  it('falls back to memory when Redis throws', async () => {
    const broken = { ready: { eval: () => Promise.reject(new Error('down')) }, key: (k: string) => k } as unknown as RedisService;
    const rl = limiter({ ModelRequestRateLimitCount: 1 }, broken);
    await rl.check(1, 'default');
    await expect(rl.check(1, 'default')).rejects.toBeInstanceOf(ModelRateLimitError);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.skipIf(!redisUrl)('redis sliding window', () => {
  const client = redisUrl ? new Redis(redisUrl) : undefined;
  const key = `test:mrrl:${process.pid}:${Date.now()}`;
  afterAll(async () => {
    await client?.del(key, `${key}:s`);
    await client?.quit();
  });

  it('is atomic under concurrency: exactly max of many parallel takes pass', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => redisWindow(client!, key, 'take', 7, MINUTE)));
    expect(results.filter(Boolean)).toHaveLength(7);
    expect(await client!.pttl(key)).toBeGreaterThan(0);
  });

  it('keeps at most max successes and checks without counting', async () => {
    for (let i = 0; i < 5; i++) await redisWindow(client!, `${key}:s`, 'record', 3, MINUTE);
    expect(await client!.zcard(`${key}:s`)).toBe(3);
    expect(await redisWindow(client!, `${key}:s`, 'check', 3, MINUTE)).toBe(false);
    expect(await redisWindow(client!, `${key}:s`, 'check', 4, MINUTE)).toBe(true);
    expect(await client!.zcard(`${key}:s`)).toBe(3);
  });
});
