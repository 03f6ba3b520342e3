import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, type EntityManager, type Repository } from 'typeorm';
import type { PageRequest } from '@gw/core';
import { RedemptionEntity, RedemptionStatus } from './redemption.entity.js';

/** Escapes LIKE wildcards; the queries use `ESCAPE '!'` (portable across the three databases). */
function likeEscape(value: string): string {
  return value.replace(/[!%_]/g, (c) => `!${c}`);
}

@Injectable()
export class RedemptionRepository {
  constructor(@InjectRepository(RedemptionEntity) private readonly rows: Repository<RedemptionEntity>) {}

  async page(request: PageRequest): Promise<[RedemptionEntity[], number]> {
    return this.rows.findAndCount({ order: { id: 'DESC' }, skip: request.offset, take: request.pageSize });
  }

  /** new-api's search: the keyword is an id (exact) or a name prefix. */
  async search(keyword: string, request: PageRequest): Promise<[RedemptionEntity[], number]> {
    const qb = this.rows.createQueryBuilder('r');
    if (keyword) {
      qb.where(
        new Brackets((where) => {
          where.where("r.name LIKE :prefix ESCAPE '!'", { prefix: `${likeEscape(keyword)}%` });
          if (/^\d{1,9}$/.test(keyword)) where.orWhere('r.id = :id', { id: Number(keyword) });
        }),
      );
    }
    return qb.orderBy('r.id', 'DESC').skip(request.offset).take(request.pageSize).getManyAndCount();
  }

  findById(id: number): Promise<RedemptionEntity | null> {
    return this.rows.findOne({ where: { id } });
  }

  /** The code of exactly this key (MySQL's default collation would also match it in another letter case). */
  async findByKey(key: string): Promise<RedemptionEntity | null> {
    const row = await this.rows.findOne({ where: { key } });
    return row?.key === key ? row : null;
  }

  async insertMany(rows: Partial<RedemptionEntity>[]): Promise<void> {
    await this.rows.manager.transaction((manager) => manager.getRepository(RedemptionEntity).insert(rows));
  }

  /** Name, quota and expiry of a code that is still unused (conditional: a concurrent redemption wins). */
  async updateUnused(id: number, changes: { name: string; quota: number; expiredTime: number }): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update(RedemptionEntity)
      .set(changes)
      .where('id = :id AND status = :unused AND deleted_at IS NULL', { id, unused: RedemptionStatus.Unused })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Enable/disable, never touching a used code (conditional, so it cannot race a redemption). */
  async setStatusUnlessUsed(id: number, status: number): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update(RedemptionEntity)
      .set({ status })
      .where('id = :id AND status != :used AND deleted_at IS NULL', { id, used: RedemptionStatus.Used })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async softDelete(id: number): Promise<boolean> {
    const result = await this.rows.softDelete({ id });
    return (result.affected ?? 0) > 0;
  }

  /** new-api's "delete invalid": used, disabled and expired codes (soft delete). */
  async softDeleteInvalid(now: number): Promise<number> {
    const result = await this.rows
      .createQueryBuilder()
      .softDelete()
      .where('deleted_at IS NULL')
      .andWhere(
        new Brackets((where) => {
          where
            .where('status IN (:...dead)', { dead: [RedemptionStatus.Used, RedemptionStatus.Disabled] })
            .orWhere('(status = :unused AND expired_time != 0 AND expired_time < :now)', { unused: RedemptionStatus.Unused, now });
        }),
      )
      .execute();
    return result.affected ?? 0;
  }

  /**
   * The compare-and-swap that makes a code single-use: only the transaction that flips 1 → 3 may
   * credit. An expired or deleted code never matches.
   */
  async markUsed(manager: EntityManager, id: number, userId: number, now: number): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(RedemptionEntity)
      .set({ status: RedemptionStatus.Used, usedUserId: userId, redeemedTime: now })
      .where('id = :id AND status = :unused AND deleted_at IS NULL', { id, unused: RedemptionStatus.Unused })
      .andWhere('(expired_time = 0 OR expired_time >= :now)', { now })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  /** The face value, read after markUsed inside the same transaction (the row is ours by then). */
  async quotaOf(manager: EntityManager, id: number): Promise<number> {
    const row = await manager.getRepository(RedemptionEntity).findOne({ where: { id } });
    return row?.quota ?? 0;
  }
}
