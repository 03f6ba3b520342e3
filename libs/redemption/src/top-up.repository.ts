import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { PageRequest } from '@gw/core';
import { UserEntity } from '@gw/user';
import { TopUpEntity, TopUpStatus } from './top-up.entity.js';

@Injectable()
export class TopUpRepository {
  constructor(@InjectRepository(TopUpEntity) private readonly rows: Repository<TopUpEntity>) {}

  async insert(row: Partial<TopUpEntity>): Promise<void> {
    await this.rows.insert(row);
  }

  findByTradeNo(tradeNo: string, manager?: EntityManager): Promise<TopUpEntity | null> {
    return (manager ? manager.getRepository(TopUpEntity) : this.rows).findOne({ where: { tradeNo } });
  }

  pageOfUser(userId: number, request: PageRequest): Promise<[TopUpEntity[], number]> {
    return this.rows.findAndCount({ where: { userId }, order: { id: 'DESC' }, skip: request.offset, take: request.pageSize });
  }

  /** The compare-and-swap that makes an order complete once: only the pending → success flip may credit. */
  async markPaid(manager: EntityManager, tradeNo: string, now: number): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(TopUpEntity)
      .set({ status: TopUpStatus.Success, completeTime: now })
      .where('trade_no = :tradeNo AND status = :pending', { tradeNo, pending: TopUpStatus.Pending })
      .execute();
    return (result.affected ?? 0) === 1;
  }
}

/** Identity reads on `users` for the credit transactions of this module (the credit itself is @gw/user's UserBalance). */
@Injectable()
export class WalletRepository {
  async username(manager: EntityManager, userId: number): Promise<string> {
    const row = await manager.getRepository(UserEntity).findOne({ where: { id: userId }, select: { id: true, username: true } });
    return row?.username ?? '';
  }
}
