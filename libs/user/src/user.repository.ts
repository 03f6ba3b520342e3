import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { UserEntity } from './user.entity.js';

@Injectable()
export class UserRepository {
  constructor(@InjectRepository(UserEntity) private readonly rows: Repository<UserEntity>) {}

  private repo(manager?: EntityManager): Repository<UserEntity> {
    return manager ? manager.getRepository(UserEntity) : this.rows;
  }

  findById(id: number, manager?: EntityManager): Promise<UserEntity | null> {
    return this.repo(manager).findOne({ where: { id } });
  }

  /** Login accepts the username or the email (new-api: `username = ? OR email = ?`). */
  findByLoginName(name: string): Promise<UserEntity | null> {
    return this.rows.findOne({ where: [{ username: name }, { email: name }] });
  }

  findByAccessToken(token: string): Promise<UserEntity | null> {
    return this.rows.findOne({ where: { accessToken: token } });
  }

  /** Counts soft-deleted rows too: a name that ever existed is not reused. */
  async usernameTaken(username: string, manager?: EntityManager): Promise<boolean> {
    return (await this.repo(manager).count({ where: { username }, withDeleted: true })) > 0;
  }

  async countWithRole(role: number, manager?: EntityManager): Promise<number> {
    return this.repo(manager).count({ where: { role } });
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
}
