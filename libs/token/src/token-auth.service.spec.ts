import { SchedulerRegistry } from '@nestjs/schedule';
import { describe, expect, it, vi } from 'vitest';
import type { AppConfig, RedisService } from '@gw/core';
import type { OptionService } from '@gw/option';
import { UserHooks } from '@gw/user';
import type { UserSnapshot } from './relay-identity.js';
import { TokenAuthService } from './token-auth.service.js';
import { TokenIndex } from './token-index.js';
import { TokenStatus, type TokenEntity } from './token.entity.js';
import type { TokenRepository } from './token.repository.js';
import type { UserSnapshots } from './user-snapshots.js';

const KEY = 'k'.repeat(48);

async function setup(token: Partial<TokenEntity> = {}) {
  const row = {
    id: 1,
    userId: 5,
    key: KEY,
    status: TokenStatus.Enabled,
    name: 'main',
    createdTime: 0,
    accessedTime: 0,
    expiredTime: -1,
    remainQuota: 100,
    unlimitedQuota: false,
    modelLimitsEnabled: false,
    modelLimits: '',
    allowIps: '',
    usedQuota: 0,
    group: '',
    deletedAt: null,
    ...token,
  } as TokenEntity;
  const repo = {
    findAllLive: async () => [{ ...row }],
    findById: async () => ({ ...row }),
    findByKey: async () => null,
    markExhausted: vi.fn(async () => row.remainQuota <= 0),
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
  const users = { get: async () => user, spend: vi.fn((_: number, q: number) => (user.quota -= q)), invalidate: vi.fn() };
  const redis = { publish: vi.fn(async () => undefined), subscribe: vi.fn(), onResubscribed: vi.fn() };
  const options = { get: () => ({ default: 'default' }) };
  const config = { sync: { frequencySeconds: 60 } } as AppConfig;
  const index = new TokenIndex(repo as unknown as TokenRepository);
  const hooks = new UserHooks();
  const auth = new TokenAuthService(
    index,
    users as unknown as UserSnapshots,
    repo as unknown as TokenRepository,
    options as unknown as OptionService,
    redis as unknown as RedisService,
    hooks,
    config,
    new SchedulerRegistry(),
  );
  await auth.onModuleInit();
  auth.onModuleDestroy();
  return { auth, repo, row, users, user, redis, hooks };
}

describe('TokenAuthService', () => {
  it('keeps remaining and used quota in step after billing, and marks the token exhausted at zero', async () => {
    const { auth, repo, row, user } = await setup();
    auth.applySpend(1, 30);
    expect((await auth.authenticate({ authorization: `Bearer sk-${KEY}` }, '127.0.0.1')).token).toMatchObject({
      remainQuota: 70,
      usedQuota: 30,
    });
    expect(user.quota).toBe(970);
    row.remainQuota = 0;
    auth.applySpend(1, 70);
    await vi.waitFor(() => expect(repo.markExhausted).toHaveBeenCalledWith(1));
    await expect(auth.authenticate({ authorization: KEY }, '127.0.0.1')).rejects.toMatchObject({
      message: 'the token quota is exhausted',
      relayStatus: 401,
    });
  });

  it('does not lower the remaining quota of an unlimited token', async () => {
    const { auth } = await setup({ unlimitedQuota: true, remainQuota: 0 });
    auth.applySpend(1, 500);
    expect((await auth.authenticate({ xApiKey: KEY }, '::1')).token).toMatchObject({ remainQuota: 0, usedQuota: 500 });
  });

  it('markExhausted changes nothing while the database still shows quota', async () => {
    const { auth, repo } = await setup({ remainQuota: 50 });
    await auth.markExhausted(1);
    expect(repo.markExhausted).toHaveBeenCalledWith(1);
    expect((await auth.authenticate({ queryKey: KEY }, '127.0.0.1')).token.status).toBe(TokenStatus.Enabled);
  });

  it("hands out the index's own snapshots (typed read-only, no copy per request), kept current by applySpend", async () => {
    const { auth } = await setup({ modelLimits: 'a,b' });
    const first = await auth.authenticate({ authorization: KEY }, '127.0.0.1');
    const second = await auth.authenticate({ authorization: KEY }, '127.0.0.1');
    expect(second.token).toBe(first.token);
    expect(first.token).toMatchObject({ remainQuota: 100, modelLimits: ['a', 'b'] });
    auth.applySpend(1, 30);
    expect(first.token).toMatchObject({ remainQuota: 70, usedQuota: 30 });
  });

  it('drops a changed user and tells the other instances', async () => {
    const { users, redis, hooks } = await setup();
    hooks.userChanged(5);
    expect(users.invalidate).toHaveBeenCalledWith(5);
    expect(redis.publish).toHaveBeenCalledWith('users:changed', '5');
  });
});
