import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type EntityManager, type Repository } from 'typeorm';
import { TokenEntity, TokenStatus } from './token.entity.js';

/** LIKE pattern with `!` as the escape character, portable across SQLite, MySQL and PostgreSQL. */
function likeContains(keyword: string): string {
  return `%${keyword.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

@Injectable()
export class TokenRepository {
  constructor(@InjectRepository(TokenEntity) private readonly rows: Repository<TokenEntity>) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.rows.manager.transaction(work);
  }

  /** Every live token, for the relay's in-memory index. */
  findAllLive(): Promise<TokenEntity[]> {
    return this.rows.find({ order: { id: 'ASC' } });
  }

  findById(id: number): Promise<TokenEntity | null> {
    return this.rows.findOne({ where: { id } });
  }

  /** The token of exactly this key (MySQL's default collation would also match it in another letter case). */
  async findByKey(key: string): Promise<TokenEntity | null> {
    const row = await this.rows.findOne({ where: { key } });
    return row?.key === key ? row : null;
  }

  /** Only the owner's token: another user's id reads as missing. */
  findOwned(id: number, userId: number): Promise<TokenEntity | null> {
    return this.rows.findOne({ where: { id, userId } });
  }

  findOwnedIds(ids: number[], userId: number): Promise<TokenEntity[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.rows.find({ where: { id: In(ids), userId } });
  }

  listOwned(userId: number, offset: number, limit: number): Promise<[TokenEntity[], number]> {
    return this.rows.findAndCount({ where: { userId }, order: { id: 'DESC' }, skip: offset, take: limit });
  }

  /** new-api SearchUserTokens: name contains `keyword`, key contains `token` (both escaped). */
  searchOwned(userId: number, keyword: string, token: string, offset: number, limit: number): Promise<[TokenEntity[], number]> {
    const qb = this.rows.createQueryBuilder('t').where('t.user_id = :userId', { userId });
    if (keyword) qb.andWhere("t.name LIKE :kw ESCAPE '!'", { kw: likeContains(keyword) });
    if (token) qb.andWhere("t.key LIKE :key ESCAPE '!'", { key: likeContains(token) });
    return qb.orderBy('t.id', 'DESC').skip(offset).take(limit).getManyAndCount();
  }

  countOwned(userId: number): Promise<number> {
    return this.rows.count({ where: { userId } });
  }

  async insert(tokens: Partial<TokenEntity>[], manager: EntityManager): Promise<TokenEntity[]> {
    const repo = manager.getRepository(TokenEntity);
    const saved: TokenEntity[] = [];
    for (const token of tokens) saved.push(await repo.save(repo.create(token)));
    return saved;
  }

  async update(id: number, userId: number, changes: Partial<TokenEntity>): Promise<boolean> {
    const result = await this.rows.update({ id, userId }, changes);
    return (result.affected ?? 0) > 0;
  }

  /** Soft delete (new-api keeps the row with deleted_at set); returns the ids actually deleted. */
  async softDeleteOwned(ids: number[], userId: number): Promise<number[]> {
    if (!ids.length) return [];
    const owned = await this.rows.find({ select: { id: true }, where: { id: In(ids), userId } });
    const ownedIds = owned.map((t) => t.id);
    if (ownedIds.length) await this.rows.softDelete({ id: In(ownedIds), userId });
    return ownedIds;
  }

  /** Enabled → expired/exhausted, only while the row still says so (never overrides a newer edit). */
  async markExpired(id: number, now: number): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update(TokenEntity)
      .set({ status: TokenStatus.Expired })
      .where('id = :id AND status = :enabled AND expired_time != -1 AND expired_time <= :now', { id, enabled: TokenStatus.Enabled, now })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Only a token that really has nothing left (remain ≤ 0, not unlimited) becomes exhausted. */
  async markExhausted(id: number): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update(TokenEntity)
      .set({ status: TokenStatus.Exhausted })
      .where('id = :id AND status = :enabled AND unlimited_quota = :off AND remain_quota <= 0', {
        id,
        enabled: TokenStatus.Enabled,
        off: 0,
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }
}
