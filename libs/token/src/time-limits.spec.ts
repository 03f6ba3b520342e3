import { SchedulerRegistry } from '@nestjs/schedule';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppConfig, RedisService } from '@gw/core';
import type { OptionService } from '@gw/option';
import { UserHooks } from '@gw/user';
import type { UserSnapshot } from './relay-identity.js';
import { TokenAuthService } from './token-auth.service.js';
import { TokenIndex } from './token-index.js';
import { assertCanEnable, isPastExpiry, reachedStatus } from './token-rules.js';
import { TokenStatus, type TokenEntity } from './token.entity.js';
import type { TokenRepository } from './token.repository.js';
import type { UserSnapshots } from './user-snapshots.js';

/**
 * Threat F8 and Z5: a token's expired_time (unix seconds, the app's clock) is the last second it works, as
 * new-api (`expired_time < now` is expired). Just inside is accepted, one second later refused. Only Date is fake.
 */
const KEY = 'e'.repeat(48);
const EXPIRES = 1_900_000_000;

function tokenRow(expiredTime: number): TokenEntity {
  return {
    id: 1,
    userId: 5,
    key: KEY,
    status: TokenStatus.Enabled,
    name: 'main',
    createdTime: 0,
    accessedTime: 0,
    expiredTime,
    remainQuota: 100,
    unlimitedQuota: false,
    modelLimitsEnabled: false,
    modelLimits: '',
    allowIps: '',
    usedQuota: 0,
    group: '',
    deletedAt: null,
  } as TokenEntity;
}

async function relayAuth(expiredTime: number) {
  const row = tokenRow(expiredTime);
  const repo = {
    findAllLive: async () => [{ ...row }],
    findById: async () => ({ ...row }),
    findByKey: async () => null,
    markExhausted: vi.fn(async () => false),
    markExpired: vi.fn(async () => true),
  };
  const user: UserSnapshot = {
    id: 5,
    username: 'u',
    role: 1,
    status: 1,
    group: 'default',
    quota: 1000,
    setting: { acceptUnsetModelRatioModel: false, recordIpLog: false },
  };
  const auth = new TokenAuthService(
    new TokenIndex(repo as unknown as TokenRepository),
    { get: async () => user, spend: vi.fn(), invalidate: vi.fn() } as unknown as UserSnapshots,
    repo as unknown as TokenRepository,
    { get: () => ({ default: 'default' }) } as unknown as OptionService,
    { publish: vi.fn(async () => undefined), subscribe: vi.fn(), onResubscribed: vi.fn() } as unknown as RedisService,
    new UserHooks(),
    { sync: { frequencySeconds: 60 } } as AppConfig,
    new SchedulerRegistry(),
  );
  await auth.onModuleInit();
  auth.onModuleDestroy();
  return { auth, repo };
}

describe('token expiry at the boundary', () => {
  afterEach(() => vi.useRealTimers());
  const at = (ms: number) => vi.useFakeTimers({ toFake: ['Date'], now: ms });

  it('the relay accepts a key through the last millisecond of its expiry second', async () => {
    at(EXPIRES * 1000 + 999);
    const { auth, repo } = await relayAuth(EXPIRES);
    await expect(auth.authenticate({ authorization: `Bearer sk-${KEY}` }, '127.0.0.1')).resolves.toMatchObject({ token: { id: 1 } });
    expect(repo.markExpired).not.toHaveBeenCalled();
  });

  it('the relay refuses it from the next second on, and marks it expired as of then', async () => {
    at(EXPIRES * 1000 + 1000);
    const { auth, repo } = await relayAuth(EXPIRES);
    await expect(auth.authenticate({ authorization: `Bearer sk-${KEY}` }, '127.0.0.1')).rejects.toMatchObject({
      message: 'the token has expired',
      relayStatus: 401,
    });
    expect(repo.markExpired).toHaveBeenCalledWith(1, EXPIRES + 1);
    // Every way of sending the key gets the same answer (threat Z5).
    for (const key of [{ xApiKey: KEY }, { queryKey: KEY }, { authorization: KEY }]) {
      await expect(auth.authenticate(key, '127.0.0.1')).rejects.toMatchObject({ message: 'the token has expired' });
    }
  });

  it('the console rules agree on the same second: enabling and the reached status', () => {
    at(EXPIRES * 1000);
    expect(isPastExpiry(tokenRow(EXPIRES))).toBe(false);
    expect(() => assertCanEnable(tokenRow(EXPIRES))).not.toThrow();
    expect(reachedStatus(tokenRow(EXPIRES))).toBeUndefined();
    at((EXPIRES + 1) * 1000);
    expect(isPastExpiry(tokenRow(EXPIRES))).toBe(true);
    expect(() => assertCanEnable(tokenRow(EXPIRES))).toThrow('the token has expired');
    expect(reachedStatus(tokenRow(EXPIRES))).toBe(TokenStatus.Expired);
    // -1 never expires, whatever the clock says.
    at(8_000_000_000_000);
    expect(isPastExpiry(tokenRow(-1))).toBe(false);
  });
});
