import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, type EntityManager, type Repository, type SelectQueryBuilder } from 'typeorm';
import { MidjourneyEntity } from './midjourney.entity.js';

export interface MjListFilter {
  userId?: number;
  channelId?: number;
  mjId?: string;
  /** Unix milliseconds, on submit_time (new-api's Midjourney times are ms). */
  start?: number;
  end?: number;
}

/** Statuses after which a row never changes again. */
const FINAL = ['SUCCESS', 'FAILURE'];

@Injectable()
export class MjRepository {
  constructor(@InjectRepository(MidjourneyEntity) private readonly rows: Repository<MidjourneyEntity>) {}

  /** In `manager`'s transaction when given (the submit charge commits with the row). */
  insert(row: Partial<MidjourneyEntity>, manager?: EntityManager): Promise<MidjourneyEntity> {
    const rows = manager ? manager.getRepository(MidjourneyEntity) : this.rows;
    return rows.save(rows.create(row));
  }

  findOwn(userId: number, mjId: string): Promise<MidjourneyEntity | null> {
    return this.rows.findOne({ where: { userId, mjId }, order: { id: 'DESC' } });
  }

  findByMjId(mjId: string): Promise<MidjourneyEntity | null> {
    return this.rows.findOne({ where: { mjId }, order: { id: 'DESC' } });
  }

  findOwnMany(userId: number, mjIds: string[]): Promise<MidjourneyEntity[]> {
    if (!mjIds.length) return Promise.resolve([]);
    return this.rows
      .createQueryBuilder('m')
      .where('m.user_id = :userId', { userId })
      .andWhere('m.mj_id IN (:...mjIds)', { mjIds })
      .orderBy('m.id', 'DESC')
      .getMany();
  }

  /** Unfinished rows (progress not 100%, as new-api reads them), oldest first. */
  unfinished(limit: number): Promise<MidjourneyEntity[]> {
    return this.rows
      .createQueryBuilder('m')
      .where(new Brackets((w) => w.where('m.progress IS NULL').orWhere('m.progress <> :done', { done: '100%' })))
      .andWhere(new Brackets((w) => w.where('m.status IS NULL').orWhere('m.status NOT IN (:...final)', { final: FINAL })))
      .andWhere("m.mj_id IS NOT NULL AND m.mj_id <> ''")
      .orderBy('m.id', 'ASC')
      .take(limit)
      .getMany();
  }

  /** Progress of a row still running; a finished row is left alone (another poller got there first). */
  async updateRunning(id: number, patch: Partial<MidjourneyEntity>): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update(MidjourneyEntity)
      .set(patch)
      .where('id = :id', { id })
      .andWhere(new Brackets((w) => w.where('status IS NULL').orWhere('status NOT IN (:...final)', { final: FINAL })))
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** The details of a row already moved to its final status (fail reason, finish time). */
  async updateDetails(id: number, patch: Partial<MidjourneyEntity>): Promise<void> {
    await this.rows.update({ id }, patch);
  }

  async list(filter: MjListFilter, offset: number, limit: number): Promise<[MidjourneyEntity[], number]> {
    const query = this.rows.createQueryBuilder('m');
    applyFilter(query, filter);
    return query.orderBy('m.id', 'DESC').skip(offset).take(limit).getManyAndCount();
  }
}

function applyFilter(query: SelectQueryBuilder<MidjourneyEntity>, filter: MjListFilter): void {
  query.where('1 = 1');
  if (filter.userId !== undefined) query.andWhere('m.user_id = :userId', { userId: filter.userId });
  if (filter.channelId !== undefined) query.andWhere('m.channel_id = :channelId', { channelId: filter.channelId });
  if (filter.mjId) query.andWhere('m.mj_id = :mjId', { mjId: filter.mjId });
  if (filter.start !== undefined) query.andWhere('m.submit_time >= :start', { start: filter.start });
  if (filter.end !== undefined) query.andWhere('m.submit_time <= :end', { end: filter.end });
}
