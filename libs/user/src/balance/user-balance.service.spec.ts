import { afterEach, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { serializeSqliteTransactions } from '@gw/database';
import { BalanceEvents, type BalanceChanged } from './balance-events.js';
import { UserEntity } from '../user.entity.js';
import { UserBalance } from './user-balance.service.js';

async function openWallets(quotas: number[]) {
  const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [UserEntity], synchronize: true });
  await dataSource.initialize();
  serializeSqliteTransactions(dataSource);
  await dataSource.query('CREATE TABLE receipts (id INTEGER PRIMARY KEY)');
  for (const [i, quota] of quotas.entries())
    await dataSource.getRepository(UserEntity).insert({ id: i + 1, username: `user${i + 1}`, password: 'x', quota });
  const events = new BalanceEvents();
  const changes: BalanceChanged[] = [];
  events.onBalanceChanged((change) => changes.push(change));
  const quotaOf = async (id: number) => Number((await dataSource.query('SELECT quota FROM users WHERE id = ?', [id]))[0].quota);
  return { dataSource, balances: new UserBalance(dataSource, events), changes, quotaOf };
}

describe('UserBalance', () => {
  let dataSource: DataSource | undefined;
  afterEach(async () => {
    await dataSource?.destroy();
    dataSource = undefined;
  });

  it('credits in the caller transaction and announces BalanceChanged only once it committed', async () => {
    const wallets = await openWallets([100, 5]);
    dataSource = wallets.dataSource;
    let seenInside = -1;
    await wallets.balances.transaction(async (wallet, manager) => {
      await manager.query('INSERT INTO receipts (id) VALUES (1)');
      expect(await wallet.credit(1, 50)).toBe(true);
      expect(await wallet.credit(2, 7)).toBe(true);
      seenInside = wallets.changes.length;
    });
    expect(seenInside).toBe(0);
    expect(wallets.changes).toEqual([{ userId: 1 }, { userId: 2 }]);
    expect(await wallets.quotaOf(1)).toBe(150);
    expect(await wallets.quotaOf(2)).toBe(12);
  });

  it('a rolled-back transaction takes its credit back and announces nothing', async () => {
    const wallets = await openWallets([100]);
    dataSource = wallets.dataSource;
    await expect(
      wallets.balances.transaction(async (wallet) => {
        await wallet.credit(1, 50);
        throw new Error('the order could not be marked paid');
      }),
    ).rejects.toThrow('the order could not be marked paid');
    expect(wallets.changes).toEqual([]);
    expect(await wallets.quotaOf(1)).toBe(100);
  });

  it('refuses a credit past 2^53 - 1 and one to a deleted or missing user', async () => {
    const wallets = await openWallets([Number.MAX_SAFE_INTEGER - 10, 0]);
    dataSource = wallets.dataSource;
    await wallets.dataSource.query('UPDATE users SET deleted_at = CURRENT_TIMESTAMP WHERE id = 2');
    const outcomes = await wallets.balances.transaction(async (wallet) => [
      await wallet.credit(1, 11),
      await wallet.credit(1, 10),
      await wallet.credit(2, 1),
      await wallet.credit(3, 1),
    ]);
    expect(outcomes).toEqual([false, true, false, false]);
    expect(await wallets.quotaOf(1)).toBe(Number.MAX_SAFE_INTEGER);
    expect(wallets.changes).toEqual([{ userId: 1 }]);
  });
});
