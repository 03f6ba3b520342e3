import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { wideParam } from '@gw/database';
import { UserEntity } from '../user.entity.js';
import { BalanceEvents } from './balance-events.js';

/** The user-balance moves available inside a UserBalance.transaction(). */
export interface UserBalanceMoves {
  /**
   * `quota = quota + n`; false when the user no longer exists or the balance would pass 2^53 − 1 (beyond
   * it JavaScript numbers, and so every later read and charge, lose precision).
   */
  credit(userId: number, quota: number): Promise<boolean>;
}

/**
 * Credits to users' wallets (top-ups, redemption codes, check-in rewards): the only writer of
 * users.quota outside the relay's and the tasks' ledger (libs/token's BalanceLedger). Each credit runs
 * in the caller's transaction next to the caller's own rows (the order marked paid, the code marked
 * used), and BalanceChanged fires for every credited user once that transaction has committed.
 */
@Injectable()
export class UserBalance {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: BalanceEvents,
  ) {}

  async transaction<T>(work: (moves: UserBalanceMoves, manager: EntityManager) => Promise<T>): Promise<T> {
    const credited = new Set<number>();
    const result = await this.dataSource.transaction((manager) =>
      work(
        {
          credit: async (userId, quota) => {
            const done = await credit(manager, userId, quota);
            if (done) credited.add(userId);
            return done;
          },
        },
        manager,
      ),
    );
    for (const userId of credited) this.events.changed({ userId });
    return result;
  }
}

async function credit(manager: EntityManager, userId: number, quota: number): Promise<boolean> {
  const result = await manager
    .createQueryBuilder()
    .update(UserEntity)
    .set({ quota: () => 'quota + :credit' })
    .where(`id = :userId AND deleted_at IS NULL AND quota <= ${wideParam(manager.connection, 'ceiling')}`, {
      userId,
      ceiling: Number.MAX_SAFE_INTEGER - quota,
    })
    .setParameters({ credit: quota })
    .execute();
  return (result.affected ?? 0) === 1;
}
