import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isUniqueViolation } from '../support/db-errors.js';
import { CustomOAuthProviderEntity, UserOAuthBindingEntity } from './custom-oauth.entity.js';

@Injectable()
export class CustomOAuthRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get providers() {
    return this.db.getRepository(CustomOAuthProviderEntity);
  }

  private get bindings() {
    return this.db.getRepository(UserOAuthBindingEntity);
  }

  list(): Promise<CustomOAuthProviderEntity[]> {
    return this.providers.find({ order: { id: 'ASC' } });
  }

  listEnabled(): Promise<CustomOAuthProviderEntity[]> {
    return this.providers.find({ where: { enabled: true }, order: { id: 'ASC' } });
  }

  findById(id: number): Promise<CustomOAuthProviderEntity | null> {
    return this.providers.findOne({ where: { id } });
  }

  findBySlug(slug: string): Promise<CustomOAuthProviderEntity | null> {
    return this.providers.findOne({ where: { slug } });
  }

  async slugTaken(slug: string, exceptId = 0): Promise<boolean> {
    const found = await this.providers.findOne({ where: { slug } });
    return found !== null && found.id !== exceptId;
  }

  async insert(row: Partial<CustomOAuthProviderEntity>): Promise<number> {
    const result = await this.providers.insert(row);
    return Number(result.identifiers[0]?.id);
  }

  async update(id: number, changes: Partial<CustomOAuthProviderEntity>): Promise<void> {
    await this.providers.update({ id }, changes);
  }

  /** The provider and every binding to it. */
  async remove(id: number): Promise<boolean> {
    return this.db.transaction(async (m) => {
      await m.getRepository(UserOAuthBindingEntity).delete({ providerId: id });
      return ((await m.getRepository(CustomOAuthProviderEntity).delete({ id })).affected ?? 0) > 0;
    });
  }

  bindingsOfUser(userId: number): Promise<UserOAuthBindingEntity[]> {
    return this.bindings.find({ where: { userId }, order: { id: 'ASC' } });
  }

  findBinding(providerId: number, providerUserId: string): Promise<UserOAuthBindingEntity | null> {
    return this.bindings.findOne({ where: { providerId, providerUserId } });
  }

  findUserBinding(userId: number, providerId: number): Promise<UserOAuthBindingEntity | null> {
    return this.bindings.findOne({ where: { userId, providerId } });
  }

  /** Inserts a binding; false when a parallel request bound the same account or provider first. */
  async bind(userId: number, providerId: number, providerUserId: string): Promise<boolean> {
    try {
      await this.bindings.insert({ userId, providerId, providerUserId });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async rebind(id: number, providerUserId: string): Promise<boolean> {
    try {
      await this.bindings.update({ id }, { providerUserId });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async unbind(userId: number, providerId: number): Promise<boolean> {
    return ((await this.bindings.delete({ userId, providerId })).affected ?? 0) > 0;
  }

  async unbindAll(userId: number): Promise<void> {
    await this.bindings.delete({ userId });
  }
}
