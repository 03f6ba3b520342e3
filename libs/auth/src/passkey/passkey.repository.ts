import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { PasskeyCredentialEntity } from './passkey.entity.js';

@Injectable()
export class PasskeyRepository {
  constructor(@InjectRepository(PasskeyCredentialEntity) private readonly rows: Repository<PasskeyCredentialEntity>) {}

  listByUser(userId: number): Promise<PasskeyCredentialEntity[]> {
    return this.rows.find({ where: { userId }, order: { id: 'DESC' } });
  }

  findByCredentialId(credentialId: string): Promise<PasskeyCredentialEntity | null> {
    return this.rows.findOne({ where: { credentialId } });
  }

  /** True when the credential id exists at all, soft-deleted rows included (the column is unique). */
  async credentialTaken(credentialId: string): Promise<boolean> {
    return (await this.rows.count({ where: { credentialId }, withDeleted: true })) > 0;
  }

  async insert(row: Partial<PasskeyCredentialEntity>): Promise<void> {
    await this.rows.insert(row);
  }

  /** Moves the sign counter forward only (a parallel or replayed assertion with an old counter loses). */
  async recordUse(id: number, signCount: number, changes: Partial<PasskeyCredentialEntity>): Promise<boolean> {
    const query = this.rows
      .createQueryBuilder()
      .update(PasskeyCredentialEntity)
      .set({ ...changes, signCount })
      .where('id = :id', { id });
    // Authenticators without a counter always send 0 (synced passkeys); those cannot be checked.
    if (signCount > 0) query.andWhere('sign_count < :signCount', { signCount });
    const result = await query.execute();
    return (result.affected ?? 0) > 0;
  }

  /** Hard delete (new-api does, so the unique credential id can be registered again). */
  async deleteForUser(userId: number, credentialId?: string): Promise<number> {
    const result = await this.rows.delete(credentialId ? { userId, credentialId } : { userId });
    return result.affected ?? 0;
  }
}
