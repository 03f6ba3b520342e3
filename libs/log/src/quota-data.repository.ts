import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { QuotaDataEntity } from './quota-data.entity.js';

export interface QuotaBucket {
  userId: number;
  username: string;
  modelName: string;
  /** Start of the hour, unix seconds. */
  createdAt: number;
  count: number;
  quota: number;
  tokenUsed: number;
}

/** new-api's dashboard row shape (the admin overview leaves the user columns zero). */
export interface QuotaDataView {
  id: number;
  user_id: number;
  username: string;
  model_name: string;
  created_at: number;
  token_used: number;
  count: number;
  quota: number;
}

@Injectable()
export class QuotaDataRepository {
  constructor(@InjectRepository(QuotaDataEntity) private readonly rows: Repository<QuotaDataEntity>) {}

  /** Adds a bucket into its row: increment if it exists, else insert (a lost insert race becomes an increment). */
  async add(bucket: QuotaBucket): Promise<void> {
    if (await this.increment(bucket)) return;
    try {
      await this.rows.insert({ ...bucket });
    } catch (error) {
      // Another instance inserted the same bucket first (unique key): add into its row instead.
      if (!(await this.increment(bucket))) throw error;
    }
  }

  /** One user's rows (GET /api/data/self, or the admin view filtered by username). */
  async forUser(where: { userId?: number; username?: string }, start: number, end: number): Promise<QuotaDataView[]> {
    const qb = this.rows.createQueryBuilder('q').where('q.createdAt >= :start AND q.createdAt <= :end', { start, end });
    if (where.userId !== undefined) qb.andWhere('q.userId = :userId', { userId: where.userId });
    if (where.username !== undefined) qb.andWhere('q.username = :username', { username: where.username });
    const rows = await qb.orderBy('q.createdAt', 'ASC').addOrderBy('q.modelName', 'ASC').getMany();
    return rows.map((r) => ({
      id: r.id,
      user_id: r.userId,
      username: r.username,
      model_name: r.modelName,
      created_at: r.createdAt,
      token_used: r.tokenUsed,
      count: r.count,
      quota: r.quota,
    }));
  }

  /** Every user summed per model and hour (new-api GetAllQuotaDates without a username). */
  overview(start: number, end: number): Promise<QuotaDataView[]> {
    return this.summed('modelName', start, end);
  }

  /** Every model summed per user and hour (new-api GetQuotaDataGroupByUser, `/api/data/users`). */
  byUser(start: number, end: number): Promise<QuotaDataView[]> {
    return this.summed('username', start, end);
  }

  private async summed(by: 'modelName' | 'username', start: number, end: number): Promise<QuotaDataView[]> {
    const rows = await this.rows
      .createQueryBuilder('q')
      .select(`q.${by}`, 'label')
      .addSelect('q.createdAt', 'created_at')
      .addSelect('SUM(q.count)', 'count')
      .addSelect('SUM(q.quota)', 'quota')
      .addSelect('SUM(q.tokenUsed)', 'token_used')
      .where('q.createdAt >= :start AND q.createdAt <= :end', { start, end })
      .groupBy(`q.${by}`)
      .addGroupBy('q.createdAt')
      .orderBy('q.createdAt', 'ASC')
      .addOrderBy(`q.${by}`, 'ASC')
      .getRawMany<Record<string, unknown>>();
    return rows.map((r) => ({
      id: 0,
      user_id: 0,
      username: by === 'username' ? String(r.label) : '',
      model_name: by === 'modelName' ? String(r.label) : '',
      created_at: Number(r.created_at),
      token_used: Number(r.token_used),
      count: Number(r.count),
      quota: Number(r.quota),
    }));
  }

  private async increment(bucket: QuotaBucket): Promise<boolean> {
    const qb = this.rows.createQueryBuilder().update(QuotaDataEntity);
    const column = (name: string) => qb.escape(name);
    const result = await qb
      .set({
        count: () => `${column('count')} + :count`,
        quota: () => `${column('quota')} + :quota`,
        tokenUsed: () => `${column('token_used')} + :tokenUsed`,
      })
      .where('user_id = :userId AND username = :username AND model_name = :modelName AND created_at = :createdAt')
      .setParameters({ ...bucket })
      .execute();
    return (result.affected ?? 0) > 0;
  }
}
