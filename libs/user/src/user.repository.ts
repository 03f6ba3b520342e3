import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, type Repository } from 'typeorm';
import { wideParam } from '@gw/database';
import { UserEntity } from './user.entity.js';

export type BindingField = 'githubId' | 'oidcId' | 'wechatId' | 'telegramId' | 'linuxDoId' | 'discordId' | 'email';

/** LIKE pattern with `!` as the escape character, portable across SQLite, MySQL and PostgreSQL. */
export function likeContains(keyword: string): string {
  return `%${keyword.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

@Injectable()
export class UserRepository {
  constructor(@InjectRepository(UserEntity) private readonly rows: Repository<UserEntity>) {}

  private repo(manager?: EntityManager): Repository<UserEntity> {
    return manager ? manager.getRepository(UserEntity) : this.rows;
  }

  findById(id: number, manager?: EntityManager): Promise<UserEntity | null> {
    return this.repo(manager).findOne({ where: { id } });
  }

  findByIdWithDeleted(id: number): Promise<UserEntity | null> {
    return this.rows.findOne({ where: { id }, withDeleted: true });
  }

  /** Login accepts the username or the email (new-api: `username = ? OR email = ?`). */
  findByLoginName(name: string): Promise<UserEntity | null> {
    return this.rows.findOne({ where: [{ username: name }, { email: name }] });
  }

  /** The user of exactly this access token (MySQL's default collation would also match it in another letter case). */
  async findByAccessToken(token: string): Promise<UserEntity | null> {
    const row = await this.rows.findOne({ where: { accessToken: token } });
    return row?.accessToken === token ? row : null;
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.rows.findOne({ where: { email } });
  }

  /** The inviter of exactly this code (MySQL's default collation would also match it in another letter case). */
  async findByAffCode(code: string): Promise<UserEntity | null> {
    const row = await this.rows.findOne({ where: { affCode: code } });
    return row?.affCode === code ? row : null;
  }

  /** A binding (github id, email, ...) of a live user. */
  findByBinding(field: BindingField, value: string): Promise<UserEntity | null> {
    return this.rows.findOne({ where: { [field]: value } });
  }

  /** Counts soft-deleted rows too: a binding that ever existed is not reused by another user. */
  async bindingTaken(field: BindingField, value: string): Promise<boolean> {
    return (await this.rows.count({ where: { [field]: value }, withDeleted: true })) > 0;
  }

  /** Counts soft-deleted rows too: a name that ever existed is not reused. */
  async usernameTaken(username: string, manager?: EntityManager): Promise<boolean> {
    return (await this.repo(manager).count({ where: { username }, withDeleted: true })) > 0;
  }

  countAll(): Promise<number> {
    return this.rows.count();
  }

  async countWithRole(role: number, manager?: EntityManager): Promise<number> {
    return this.repo(manager).count({ where: { role } });
  }

  /** Every user, soft-deleted included, newest first. */
  list(offset: number, limit: number): Promise<[UserEntity[], number]> {
    return this.rows.findAndCount({ withDeleted: true, order: { id: 'DESC' }, skip: offset, take: limit });
  }

  search(keyword: string, group: string, offset: number, limit: number): Promise<[UserEntity[], number]> {
    const qb = this.rows.createQueryBuilder('u').withDeleted();
    if (keyword) {
      const pattern = likeContains(keyword);
      const byId = /^\d{1,9}$/.test(keyword) ? 'u.id = :id OR ' : '';
      qb.andWhere(`(${byId}u.username LIKE :kw ESCAPE '!' OR u.email LIKE :kw ESCAPE '!' OR u.displayName LIKE :kw ESCAPE '!')`, {
        kw: pattern,
        id: Number(keyword),
      });
    }
    if (group) qb.andWhere('u.group = :group', { group });
    return qb.orderBy('u.id', 'DESC').skip(offset).take(limit).getManyAndCount();
  }

  async insert(user: Partial<UserEntity>, manager?: EntityManager): Promise<UserEntity> {
    const repo = this.repo(manager);
    const result = await repo.insert(repo.create(user));
    const id = Number(result.identifiers[0]?.id);
    return (await repo.findOneOrFail({ where: { id } })) as UserEntity;
  }

  async update(id: number, changes: Partial<UserEntity>, manager?: EntityManager): Promise<void> {
    await this.repo(manager).update({ id }, changes);
  }

  /** Soft delete: the row (and its username) stays; sessions and the access token go with it. */
  async softDelete(id: number): Promise<void> {
    await this.rows.update({ id }, { accessToken: null });
    await this.rows.softDelete({ id });
  }

  async hardDelete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }

  /** Sets the invite code once; false when another code was set first or the code is taken. */
  async setAffCodeIfEmpty(id: number, code: string): Promise<boolean> {
    try {
      const result = await this.rows
        .createQueryBuilder()
        .update(UserEntity)
        .set({ affCode: code })
        .where('id = :id', { id })
        .andWhere("(aff_code IS NULL OR aff_code = '')")
        .execute();
      return (result.affected ?? 0) > 0;
    } catch {
      return false;
    }
  }

  /** Moves invite earnings into the balance; false when the earnings are short or the balance is full (conditional update). */
  async transferAff(id: number, amount: number): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update(UserEntity)
      .set({ affQuota: () => 'aff_quota - :amount', quota: () => 'quota + :amount' })
      // The balance never grows past 2^53 − 1, where JSON numbers stop being exact.
      .where(`id = :id AND aff_quota >= :amount AND quota <= ${wideParam(this.rows.manager.connection, 'ceiling')}`, {
        id,
        amount,
        ceiling: Number.MAX_SAFE_INTEGER - amount,
      })
      .setParameters({ amount })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async creditInviter(id: number, amount: number, manager: EntityManager): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(UserEntity)
      .set({ affQuota: () => 'aff_quota + :amount', affHistoryQuota: () => 'aff_history + :amount', affCount: () => 'aff_count + 1' })
      .where('id = :id', { id })
      .setParameters({ amount })
      .execute();
  }

  async clearAccessToken(id: number): Promise<void> {
    await this.rows.update({ id }, { accessToken: null });
  }
}
