import { DataSource, type EntityManager } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LogService } from '@gw/log';
import type { OptionService } from '@gw/option';
import type { UserBalance, UserBalanceMoves, UserHooks } from '@gw/user';
import { redemptionSchema } from './index.js';
import { RedeemService } from './redeem.service.js';
import { RedemptionEntity, RedemptionStatus } from './redemption.entity.js';
import { RedemptionRepository } from './redemption.repository.js';

/**
 * Threat F8: a redemption code's expired_time (unix seconds) is the last second it can be redeemed, and the
 * service and the SQL conditions read the same clock (the app's, passed in as `now`, never the database's).
 * Just inside is accepted, one second later refused. Only Date is fake.
 */
const EXPIRES = 1_900_000_000;
const user = { id: 7, username: 'alice', role: 1, group: 'default' };

describe('redemption expiry at the boundary', () => {
  let db: DataSource;
  let repo: RedemptionRepository;

  beforeAll(async () => {
    db = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: redemptionSchema.entities,
      migrations: redemptionSchema.migrations,
      migrationsRun: true,
    }).initialize();
    repo = new RedemptionRepository(db.getRepository(RedemptionEntity));
  });
  afterAll(() => db?.destroy());
  afterEach(() => vi.useRealTimers());

  let next = 0;
  async function code(expiredTime: number): Promise<RedemptionEntity> {
    next++;
    const key = `k${String(next).padStart(31, '0')}`;
    await db.getRepository(RedemptionEntity).insert({
      userId: 1,
      key,
      status: RedemptionStatus.Unused,
      name: 'c',
      quota: 100,
      createdTime: 0,
      expiredTime,
    });
    return (await db.getRepository(RedemptionEntity).findOneByOrFail({ key }))!;
  }

  function service() {
    const wallet = { credit: vi.fn(async () => true) };
    const balances = {
      transaction: (work: (moves: UserBalanceMoves, m: EntityManager) => Promise<unknown>) => db.transaction((m) => work(wallet, m)),
    };
    const options = { get: (key: string) => ({ 'general_setting.quota_display_type': 'TOKENS', QuotaPerUnit: 500000 })[key] };
    return new RedeemService(
      repo,
      balances as unknown as UserBalance,
      { recordNow: vi.fn(async () => undefined) } as unknown as LogService,
      options as unknown as OptionService,
      { userChanged: vi.fn() } as unknown as UserHooks,
    );
  }

  it('redeems through the last millisecond of the expiry second', async () => {
    const row = await code(EXPIRES);
    vi.useFakeTimers({ toFake: ['Date'], now: EXPIRES * 1000 + 999 });
    await expect(service().redeem(row.key, user)).resolves.toBe(100);
    expect((await repo.findById(row.id))?.status).toBe(RedemptionStatus.Used);
  });

  it('refuses from the next second on, and leaves the code unused', async () => {
    const row = await code(EXPIRES);
    vi.useFakeTimers({ toFake: ['Date'], now: (EXPIRES + 1) * 1000 });
    await expect(service().redeem(row.key, user)).rejects.toThrow('this redemption code has expired');
    expect((await repo.findById(row.id))?.status).toBe(RedemptionStatus.Unused);
  });

  it('the single-use UPDATE applies the same boundary (a code that expires between the read and the write)', async () => {
    const row = await code(EXPIRES);
    expect(await db.transaction((m) => repo.markUsed(m, row.id, 7, EXPIRES + 1))).toBe(false);
    expect(await db.transaction((m) => repo.markUsed(m, row.id, 7, EXPIRES))).toBe(true);
  });

  it('"remove invalid codes" keeps a code through its expiry second and removes it after', async () => {
    const row = await code(EXPIRES);
    const never = await code(0);
    await repo.softDeleteInvalid(EXPIRES);
    expect(await repo.findById(row.id)).not.toBeNull();
    await repo.softDeleteInvalid(EXPIRES + 1);
    expect(await repo.findById(row.id)).toBeNull();
    expect(await repo.findById(never.id)).not.toBeNull();
  });
});
