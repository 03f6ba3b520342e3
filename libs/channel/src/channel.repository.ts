import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, In, type EntityManager, type Repository, type SelectQueryBuilder } from 'typeorm';
import { AbilityEntity } from './ability.entity.js';
import { ChannelEntity, ChannelStatus } from './channel.entity.js';
import { splitList } from './relay-channel.js';

export interface ChannelFilter {
  status?: 'enabled' | 'disabled';
  type?: number;
}

export interface ChannelSearch extends ChannelFilter {
  keyword?: string;
  group?: string;
  model?: string;
}

/** Escapes LIKE wildcards; the queries use `ESCAPE '!'` (portable across the three databases). */
export function likeEscape(value: string): string {
  return value.replace(/[!%_]/g, (c) => `!${c}`);
}

@Injectable()
export class ChannelRepository {
  constructor(
    @InjectRepository(ChannelEntity) private readonly rows: Repository<ChannelEntity>,
    @InjectRepository(AbilityEntity) private readonly abilityRows: Repository<AbilityEntity>,
  ) {}

  repo(manager?: EntityManager): Repository<ChannelEntity> {
    return manager ? manager.getRepository(ChannelEntity) : this.rows;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.rows.manager.transaction(work);
  }

  findAllForRouting(): Promise<ChannelEntity[]> {
    return this.rows.find({ order: { id: 'ASC' } });
  }

  findById(id: number, manager?: EntityManager): Promise<ChannelEntity | null> {
    return this.repo(manager).findOne({ where: { id } });
  }

  findByIds(ids: number[], manager?: EntityManager): Promise<ChannelEntity[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.repo(manager).find({ where: { id: In(ids) } });
  }

  findByTag(tag: string, manager?: EntityManager): Promise<ChannelEntity[]> {
    return this.repo(manager).find({ where: { tag }, order: { id: 'ASC' } });
  }

  private filtered(filter: ChannelSearch, alias = 'c'): SelectQueryBuilder<ChannelEntity> {
    const qb = this.rows.createQueryBuilder(alias);
    if (filter.status === 'enabled') qb.andWhere(`${alias}.status = :enabled`, { enabled: ChannelStatus.Enabled });
    if (filter.status === 'disabled') qb.andWhere(`${alias}.status != :enabled`, { enabled: ChannelStatus.Enabled });
    if (filter.type !== undefined) qb.andWhere(`${alias}.type = :type`, { type: filter.type });
    if (filter.keyword) {
      const like = `%${likeEscape(filter.keyword)}%`;
      const id = /^\d{1,9}$/.test(filter.keyword) ? Number(filter.keyword) : -1;
      qb.andWhere(
        new Brackets((w) => {
          w.where(`${alias}.id = :kid`, { kid: id })
            .orWhere(`${alias}.name LIKE :kw ESCAPE '!'`, { kw: like })
            .orWhere(`${alias}.base_url LIKE :kw ESCAPE '!'`, { kw: like })
            .orWhere(`${alias}.tag LIKE :kw ESCAPE '!'`, { kw: like });
        }),
      );
    }
    if (filter.model) qb.andWhere(`${alias}.models LIKE :model ESCAPE '!'`, { model: `%${likeEscape(filter.model)}%` });
    if (filter.group) qb.andWhere(`${alias}.group LIKE :grp ESCAPE '!'`, { grp: `%${likeEscape(filter.group)}%` });
    return qb;
  }

  async list(filter: ChannelSearch, idSort: boolean, offset: number, limit: number): Promise<[ChannelEntity[], number]> {
    const qb = this.filtered(filter);
    if (idSort) qb.orderBy('c.id', 'DESC');
    else qb.orderBy('c.priority', 'DESC').addOrderBy('c.id', 'DESC');
    return qb.skip(offset).take(limit).getManyAndCount();
  }

  /** Every matching row (search results; the group/model filters are refined exactly by the caller). */
  async search(filter: ChannelSearch, idSort: boolean): Promise<ChannelEntity[]> {
    const qb = this.filtered(filter);
    if (idSort) qb.orderBy('c.id', 'DESC');
    else qb.orderBy('c.priority', 'DESC').addOrderBy('c.id', 'DESC');
    const rows = await qb.take(1000).getMany();
    return rows.filter(
      (row) =>
        (!filter.group || splitList(row.group).includes(filter.group)) &&
        (!filter.model || splitList(row.models).some((m) => m.includes(filter.model!))),
    );
  }

  /**
   * Tag mode paging (new-api GetPaginatedTags): the distinct tags, sorted, where the channels without a
   * tag form one more bucket, ''.
   */
  async listTags(filter: ChannelFilter, offset: number, limit: number): Promise<[string[], number]> {
    const rows = await this.filtered(filter).select('c.tag', 'tag').distinct(true).getRawMany<{ tag: string | null }>();
    const all = [...new Set(rows.map((r) => r.tag ?? ''))].sort();
    return [all.slice(offset, offset + limit), all.length];
  }

  /** The channels of one tag bucket ('' = untagged), ordered like the list. */
  async findInTagBucket(tag: string, filter: ChannelFilter, idSort: boolean): Promise<ChannelEntity[]> {
    const qb = this.filtered(filter);
    if (tag) qb.andWhere('c.tag = :tag', { tag });
    else qb.andWhere(new Brackets((w) => w.where('c.tag IS NULL').orWhere("c.tag = ''")));
    if (idSort) qb.orderBy('c.id', 'DESC');
    else qb.orderBy('c.priority', 'DESC').addOrderBy('c.id', 'DESC');
    return qb.getMany();
  }

  async typeCounts(filter: ChannelFilter): Promise<Record<string, number>> {
    const qb = this.filtered({ status: filter.status }).select('c.type', 'type').addSelect('COUNT(*)', 'count').groupBy('c.type');
    const rows = await qb.getRawMany<{ type: number | string; count: number | string }>();
    return Object.fromEntries(rows.map((row) => [String(row.type), Number(row.count)]));
  }

  async insert(channel: Partial<ChannelEntity>, manager: EntityManager): Promise<ChannelEntity> {
    const repo = this.repo(manager);
    const result = await repo.insert(repo.create(channel));
    const id = Number(result.identifiers[0]?.id);
    return repo.findOneOrFail({ where: { id } });
  }

  async update(id: number, changes: Partial<ChannelEntity>, manager?: EntityManager): Promise<number> {
    const result = await this.repo(manager).update({ id }, changes);
    return result.affected ?? 0;
  }

  /** Conditional status change: only rows currently in one of `from` (auto-disable / auto-enable races). */
  async setStatusIf(id: number, from: number[], to: number, otherInfo: string | undefined, manager: EntityManager): Promise<boolean> {
    const changes: Partial<ChannelEntity> = { status: to };
    if (otherInfo !== undefined) changes.otherInfo = otherInfo;
    const result = await this.repo(manager).update({ id, status: In(from) }, changes);
    return (result.affected ?? 0) > 0;
  }

  async deleteIds(ids: number[], manager: EntityManager): Promise<number> {
    if (!ids.length) return 0;
    await manager.getRepository(AbilityEntity).delete({ channelId: In(ids) });
    const result = await this.repo(manager).delete({ id: In(ids) });
    return result.affected ?? 0;
  }

  async idsWithStatus(statuses: number[], manager?: EntityManager): Promise<number[]> {
    const rows = await this.repo(manager).find({ select: { id: true }, where: { status: In(statuses) } });
    return rows.map((r) => r.id);
  }

  async addUsedQuota(id: number, quota: number): Promise<void> {
    await this.rows
      .createQueryBuilder()
      .update(ChannelEntity)
      .set({ usedQuota: () => `used_quota + ${Math.trunc(quota)}` })
      .where('id = :id', { id })
      .execute();
  }

  /** Rewrites the abilities of these channels to match their rows (same transaction as the write). */
  async syncAbilities(channels: ChannelEntity[], manager: EntityManager): Promise<void> {
    if (!channels.length) return;
    const repo = manager.getRepository(AbilityEntity);
    await repo.delete({ channelId: In(channels.map((c) => c.id)) });
    const rows: Partial<AbilityEntity>[] = [];
    for (const channel of channels) {
      for (const group of splitList(channel.group)) {
        for (const model of splitList(channel.models)) {
          rows.push({
            group,
            model,
            channelId: channel.id,
            enabled: channel.status === ChannelStatus.Enabled,
            priority: Number(channel.priority) || 0,
            weight: channel.weight,
            tag: channel.tag || null,
          });
        }
      }
    }
    for (let i = 0; i < rows.length; i += 100) await repo.insert(rows.slice(i, i + 100).map((r) => repo.create(r)));
  }

  async allAbilities(): Promise<AbilityEntity[]> {
    return this.abilityRows.find({ order: { channelId: 'ASC', group: 'ASC', model: 'ASC' } });
  }

  /** POST /api/channel/fix: rebuilds every ability from the channel rows. */
  async rebuildAllAbilities(manager: EntityManager): Promise<{ channels: number; abilities: number }> {
    await manager.createQueryBuilder().delete().from(AbilityEntity).execute();
    const channels = await this.repo(manager).find();
    await this.syncAbilities(channels, manager);
    return { channels: channels.length, abilities: await manager.getRepository(AbilityEntity).count() };
  }
}
