import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository, SelectQueryBuilder } from 'typeorm';
import { LogEntity } from './log.entity.js';
import { likePattern, type LogFilter } from './log-filter.js';
import { LogType } from './log-type.js';

export interface LogStat {
  quota: number;
  rpm: number;
  tpm: number;
}

/** Queries over `logs`; each filter maps to a column covered by an index of the migration. */
@Injectable()
export class LogRepository {
  constructor(@InjectRepository(LogEntity) private readonly rows: Repository<LogEntity>) {}

  /**
   * Newest first. new-api sorts by id alone; created_at first (id breaks ties, same order in
   * practice) lets the (x, created_at) indexes deliver the rows already sorted on a huge table.
   */
  async list(filter: LogFilter, offset: number, limit: number, withTotal = true): Promise<[LogEntity[], number]> {
    const items = await this.filtered(filter)
      .orderBy('log.createdAt', 'DESC')
      .addOrderBy('log.id', 'DESC')
      .offset(offset)
      .limit(limit)
      .getMany();
    if (!withTotal) return [items, items.length];
    // COUNT(*) rather than getCount()'s COUNT(DISTINCT id): the same answer here, and cheaper on a big table.
    const count = await this.filtered(filter).select('COUNT(*)', 'n').getRawOne<{ n: unknown }>();
    return [items, Number(count?.n ?? 0)];
  }

  /**
   * new-api's stat: consume rows only; quota over the filtered range, rpm/tpm over the last 60 s
   * whatever the range.
   */
  async stat(filter: LogFilter, now: number): Promise<LogStat> {
    const consume = { ...filter, type: LogType.Consume };
    const total = await this.filtered(consume).select('COALESCE(SUM(log.quota), 0)', 'quota').getRawOne<{ quota: unknown }>();
    const recent = await this.filtered({ ...consume, start: now - 60, end: undefined })
      .select('COUNT(*)', 'rpm')
      .addSelect('COALESCE(SUM(log.promptTokens + log.completionTokens), 0)', 'tpm')
      .getRawOne<{ rpm: unknown; tpm: unknown }>();
    return { quota: Number(total?.quota ?? 0), rpm: Number(recent?.rpm ?? 0), tpm: Number(recent?.tpm ?? 0) };
  }

  private filtered(filter: LogFilter): SelectQueryBuilder<LogEntity> {
    const qb = this.rows.createQueryBuilder('log');
    const group = `${qb.escape('log')}.${qb.escape('group')}`;
    if (filter.userId !== undefined) qb.andWhere('log.userId = :userId', { userId: filter.userId });
    if (filter.type) qb.andWhere('log.type = :type', { type: filter.type });
    if (filter.start) qb.andWhere('log.createdAt >= :start', { start: filter.start });
    if (filter.end) qb.andWhere('log.createdAt <= :end', { end: filter.end });
    if (filter.username) qb.andWhere('log.username = :username', { username: filter.username });
    if (filter.tokenName) qb.andWhere('log.tokenName = :tokenName', { tokenName: filter.tokenName });
    // A name without the `%` wildcard is an exact match, which the (model_name, created_at) index serves on
    // every database; LIKE is kept for patterns.
    if (filter.modelName?.includes('%'))
      qb.andWhere(`log.modelName LIKE :modelName ESCAPE '!'`, { modelName: likePattern(filter.modelName) });
    else if (filter.modelName) qb.andWhere('log.modelName = :modelName', { modelName: filter.modelName });
    if (filter.channelId) qb.andWhere('log.channelId = :channelId', { channelId: filter.channelId });
    if (filter.group) qb.andWhere(`${group} = :group`, { group: filter.group });
    if (filter.requestId) qb.andWhere('log.requestId = :requestId', { requestId: filter.requestId });
    if (filter.tokenId) qb.andWhere('log.tokenId = :tokenId', { tokenId: filter.tokenId });
    return qb;
  }
}
