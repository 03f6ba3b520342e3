import { describe, expect, it, vi } from 'vitest';
import type { EntityManager } from 'typeorm';
import type { LogService } from '@gw/log';
import type { OptionService } from '@gw/option';
import type { UserBalance, UserBalanceMoves, UserHooks } from '@gw/user';
import { RedeemService } from './redeem.service.js';
import type { RedemptionRepository } from './redemption.repository.js';

const user = { id: 7, username: 'alice', role: 1, group: 'default' };
const options = {
  get: (key: string) =>
    ({ DisplayInCurrencyEnabled: true, 'general_setting.quota_display_type': 'USD', QuotaPerUnit: 500000, USDExchangeRate: 7.3 })[key],
} as unknown as OptionService;

function build(code: Record<string, number> | null, wonTheRace: boolean) {
  const codes = {
    findByKey: vi.fn(async () => code && { id: 1, status: 1, expiredTime: 0, quota: 100, ...code }),
    markUsed: vi.fn(async () => wonTheRace),
    quotaOf: vi.fn(async () => 250000),
  };
  const wallet = { credit: vi.fn(async () => true) };
  const logs = { recordNow: vi.fn(async () => undefined) };
  const hooks = { userChanged: vi.fn() };
  const balances = {
    transaction: (work: (moves: UserBalanceMoves, m: EntityManager) => Promise<unknown>) => work(wallet, {} as EntityManager),
  };
  const service = new RedeemService(
    codes as unknown as RedemptionRepository,
    balances as unknown as UserBalance,
    logs as unknown as LogService,
    options,
    hooks as unknown as UserHooks,
  );
  return { service, codes, wallet, logs, hooks };
}

describe('RedeemService', () => {
  it('credits the face value read after the flip, logs it and drops the cached user', async () => {
    const { service, wallet, logs, hooks } = build({}, true);
    await expect(service.redeem('KEY', user)).resolves.toBe(250000);
    expect(wallet.credit).toHaveBeenCalledWith(7, 250000);
    expect(logs.recordNow).toHaveBeenCalledWith(
      expect.objectContaining({ userId: 7, type: 1, quota: 250000, content: 'redeemed code, quota +$0.50, code id 1' }),
      expect.anything(),
    );
    expect(hooks.userChanged).toHaveBeenCalledWith(7);
  });

  it('credits nothing when another redemption flipped the code first', async () => {
    const { service, wallet, logs, hooks } = build({}, false);
    await expect(service.redeem('KEY', user)).rejects.toThrow('this redemption code has already been used');
    expect(wallet.credit).not.toHaveBeenCalled();
    expect(logs.recordNow).not.toHaveBeenCalled();
    expect(hooks.userChanged).not.toHaveBeenCalled();
  });

  it('explains refusals without attempting the update', async () => {
    const cases: [Record<string, number> | null, string][] = [
      [null, 'invalid redemption code'],
      [{ status: 2 }, 'this redemption code has been disabled'],
      [{ status: 3 }, 'this redemption code has already been used'],
      [{ expiredTime: 1000 }, 'this redemption code has expired'],
    ];
    for (const [code, message] of cases) {
      const { service, codes } = build(code, true);
      await expect(service.redeem('KEY', user)).rejects.toThrow(message);
      expect(codes.markUsed).not.toHaveBeenCalled();
    }
    await expect(build({}, true).service.redeem('', user)).rejects.toThrow('please enter a redemption code');
  });
});
