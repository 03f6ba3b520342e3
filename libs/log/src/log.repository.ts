import { Inject, Injectable } from '@nestjs/common';
import { type DataSource, In, type Repository, type SelectQueryBuilder } from 'typeorm';
import { LOG_DATA_SOURCE } from '@gw/database';
import { LogEntity } from './log.entity.js';
import { likePattern, type LogFilter } from './log-filter.js';
import { LogType } from './log-type.js';
import type { LogList, LogStat } from './store/log-store.js';

export type { LogList, LogStat } from './store/log-store.js';

/** Totals above this are reported as "more than" it (`total_capped`), not counted. */
export const TOTAL_CAP = 10_000;
/** From this offset on, a numbered page is found through the index first (deepPage). */
const DEFERRED_OFFSET = 1000;

/** Queries over `logs`; each filter maps to a column covered by an index of the migration. */
@Injectable()
export class LogRepository {
  private readonly rows: Repository<LogEntity>;

  constructor(@Inject(LOG_DATA_SOURCE) dataSource: DataSource) {
    this.rows = dataSource.getRepository(LogEntity);
  }

  /**
   * Newest first. new-api sorts by id alone; created_at first (id breaks ties, same order in
   * practice) lets the (x, created_at) indexes deliver the rows already sorted on a huge table.
   */
  async list(filter: LogFilter, offset: number, limit: number, withTotal = true): Promise<LogList> {
    const skip = filter.after ? 0 : offset;
    const rows = skip >= DEFERRED_OFFSET ? await this.deepPage(filter, skip, limit) : await this.page(filter, skip, limit);
    if (!withTotal) return { rows, total: rows.length, capped: false };
    const { after: _after, ...unpaged } = filter;
    return { rows, ...(await this.cappedCount(unpaged)) };
  }

  private page(filter: LogFilter, offset: number, limit: number): Promise<LogEntity[]> {
    return this.filtered(filter).orderBy('log.createdAt', 'DESC').addOrderBy('log.id', 'DESC').offset(offset).limit(limit).getMany();
  }

  /**
   * A deep numbered page skips its offset over the index alone (the ids, which every index holds), then reads
   * only the page's rows: MySQL would otherwise read every skipped row in full (1.5 s at p=100 of 1M rows).
   */
  private async deepPage(filter: LogFilter, offset: number, limit: number): Promise<LogEntity[]> {
    const ids = await this.filtered(filter)
      .select('log.id', 'id')
      .orderBy('log.createdAt', 'DESC')
      .addOrderBy('log.id', 'DESC')
      .offset(offset)
      .limit(limit)
      .getRawMany<{ id: unknown }>();
    if (ids.length === 0) return [];
    const rows = await this.rows.findBy({ id: In(ids.map((row) => Number(row.id))) });
    return rows.sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
  }

  /**
   * The number of matching rows, counted up to TOTAL_CAP: an exact total would count millions of index
   * entries on every page view of a big table, and no one pages through more than the cap.
   */
  private async cappedCount(filter: LogFilter): Promise<{ total: number; capped: boolean }> {
    const [sql, params] = this.filtered(filter)
      .select('1', 'one')
      .limit(TOTAL_CAP + 1)
      .getQueryAndParameters();
    const [row] = await this.rows.manager.query(`SELECT COUNT(*) AS n FROM (${sql}) counted`, params);
    const n = Number(row?.n ?? 0);
    return n > TOTAL_CAP ? { total: TOTAL_CAP, capped: true } : { total: n, capped: false };
  }

  /** Sum of quota over the consume rows matching the filter. */
  async consumeQuota(filter: LogFilter): Promise<number> {
    const total = await this.filtered({ ...filter, type: LogType.Consume })
      .select('COALESCE(SUM(log.quota), 0)', 'quota')
      .getRawOne<{ quota: unknown }>();
    return Number(total?.quota ?? 0);
  }

  /** new-api's rpm/tpm: consume rows of the last 60 s, whatever the filter's time range. */
  async lastMinute(filter: LogFilter, now: number): Promise<Omit<LogStat, 'quota'>> {
    const recent = await this.filtered({ ...filter, type: LogType.Consume, start: now - 60, end: undefined })
      .select('COUNT(*)', 'rpm')
      .addSelect('COALESCE(SUM(log.promptTokens + log.completionTokens), 0)', 'tpm')
      .getRawOne<{ rpm: unknown; tpm: unknown }>();
    return { rpm: Number(recent?.rpm ?? 0), tpm: Number(recent?.tpm ?? 0) };
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
    if (filter.after)
      // created_at <= bound keeps the range on the (x, created_at) index; the OR settles ties by id.
      qb.andWhere('log.createdAt <= :afterAt AND (log.createdAt < :afterAt OR log.id < :afterId)', {
        afterAt: filter.after.createdAt,
        afterId: filter.after.id,
      });
    if (filter.afterId !== undefined) qb.andWhere('log.id > :tailAfterId', { tailAfterId: filter.afterId });
    return qb;
  }
}
