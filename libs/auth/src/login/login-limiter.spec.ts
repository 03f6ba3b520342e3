import { describe, expect, it } from 'vitest';
import type { RedisService } from '@gw/core';
import { KvStore } from '@gw/user';
import { LOGIN_LIMITS, LoginLimiter, TOO_MANY_FAILURES } from './login-limiter.js';

const limiter = () => new LoginLimiter(new KvStore({ client: undefined } as unknown as RedisService));

describe('LoginLimiter', () => {
  it('lets no more than the limit through when attempts arrive in parallel', async () => {
    const l = limiter();
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => l.reserve('id:1', '203.0.113.1')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(LOGIN_LIMITS.accountIp.max);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.message).toBe(TOO_MANY_FAILURES);
  });

  it('gives a successful attempt back, so successes never lock anyone out', async () => {
    const l = limiter();
    for (let i = 0; i < LOGIN_LIMITS.ip.max + 5; i++) {
      await l.reserve(`id:${i}`, '203.0.113.2');
      await l.release(`id:${i}`, '203.0.113.2');
    }
    await expect(l.reserve('id:999', '203.0.113.2')).resolves.toBeUndefined();
  });

  it('limits one address across accounts and one account across addresses', async () => {
    const l = limiter();
    for (let i = 0; i < LOGIN_LIMITS.ip.max; i++) await l.reserve(`name:u${i}`, '203.0.113.3');
    await expect(l.reserve('name:fresh', '203.0.113.3')).rejects.toThrow(TOO_MANY_FAILURES);
    await expect(l.reserve('name:fresh', '203.0.113.4')).resolves.toBeUndefined();
    const m = limiter();
    for (let i = 0; i < LOGIN_LIMITS.account.max; i++) await m.reserve('id:7', `198.51.100.${i}`);
    await expect(m.reserve('id:7', '198.51.100.250')).rejects.toThrow(TOO_MANY_FAILURES);
  });
});
