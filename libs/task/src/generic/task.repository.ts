import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, type EntityManager, type Repository } from 'typeorm';
import { TaskEntity } from './task.entity.js';

export interface TaskListFilter {
  userId?: number;
  channelId?: number;
  taskId?: string;
  platform?: string;
  /** Unix seconds on submit_time. */
  start?: number;
  end?: number;
}

const FINAL = ['SUCCESS', 'FAILURE'];

@Injectable()
export class TaskRepository {
  constructor(@InjectRepository(TaskEntity) private readonly rows: Repository<TaskEntity>) {}

  /** In `manager`'s transaction when given (the submit charge commits with the row). */
  insert(row: Partial<TaskEntity>, manager?: EntityManager): Promise<TaskEntity> {
    const rows = manager ? manager.getRepository(TaskEntity) : this.rows;
    return rows.save(rows.create(row));
  }

  findOwn(userId: number, taskId: string, platform?: string): Promise<TaskEntity | null> {
    return this.rows.findOne({ where: platform ? { userId, taskId, platform } : { userId, taskId }, order: { id: 'DESC' } });
  }

  findOwnMany(userId: number, taskIds: string[]): Promise<TaskEntity[]> {
    if (!taskIds.length) return Promise.resolve([]);
    return this.rows
      .createQueryBuilder('t')
      .where('t.user_id = :userId', { userId })
      .andWhere('t.task_id IN (:...taskIds)', { taskIds })
      .orderBy('t.id', 'DESC')
      .getMany();
  }

  /** Unfinished rows (new-api: progress not 100% and status neither SUCCESS nor FAILURE), oldest first. */
  unfinished(limit: number): Promise<TaskEntity[]> {
    return this.rows
      .createQueryBuilder('t')
      .where(new Brackets((w) => w.where('t.progress IS NULL').orWhere('t.progress <> :done', { done: '100%' })))
      .andWhere(new Brackets((w) => w.where('t.status IS NULL').orWhere('t.status NOT IN (:...final)', { final: FINAL })))
      .orderBy('t.id', 'ASC')
      .take(limit)
      .getMany();
  }

  /** Updates a row still running (a finished row is never rewritten); true when it was. */
  async updateRunning(id: number, patch: Partial<TaskEntity>): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update(TaskEntity)
      .set(patch as never)
      .where('id = :id', { id })
      .andWhere(new Brackets((w) => w.where('status IS NULL').orWhere('status NOT IN (:...final)', { final: FINAL })))
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async updateDetails(id: number, patch: Partial<TaskEntity>): Promise<void> {
    await this.rows.update({ id }, patch as never);
  }

  /** One slice of the task log, newest first; nothing counts the matches (the log pages without a total). */
  list(filter: TaskListFilter, offset: number, limit: number): Promise<TaskEntity[]> {
    const query = this.rows.createQueryBuilder('t').where('1 = 1');
    if (filter.userId !== undefined) query.andWhere('t.user_id = :userId', { userId: filter.userId });
    if (filter.channelId !== undefined) query.andWhere('t.channel_id = :channelId', { channelId: filter.channelId });
    if (filter.taskId) query.andWhere('t.task_id = :taskId', { taskId: filter.taskId });
    if (filter.platform) query.andWhere('t.platform = :platform', { platform: filter.platform });
    if (filter.start !== undefined) query.andWhere('t.submit_time >= :start', { start: filter.start });
    if (filter.end !== undefined) query.andWhere('t.submit_time <= :end', { end: filter.end });
    return query.orderBy('t.id', 'DESC').skip(offset).take(limit).getMany();
  }
}
