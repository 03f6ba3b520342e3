import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { TwoFaBackupCodeEntity, TwoFaEntity } from './two-factor.entity.js';

/** Queries on `two_fas` and `two_fa_backup_codes`. */
@Injectable()
export class TwoFactorRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private get rows() {
    return this.db.getRepository(TwoFaEntity);
  }

  private get codes() {
    return this.db.getRepository(TwoFaBackupCodeEntity);
  }

  findByUser(userId: number): Promise<TwoFaEntity | null> {
    return this.rows.findOne({ where: { userId } });
  }

  async update(id: number, changes: Partial<TwoFaEntity>): Promise<void> {
    await this.rows.update({ id }, changes);
  }

  /** Replaces any pending (or soft-deleted) setup of the user with a new one and its backup codes. */
  async replacePending(userId: number, secret: string, codeHashes: string[]): Promise<void> {
    await this.db.transaction(async (m) => {
      await this.purge(m, userId);
      await m.getRepository(TwoFaEntity).insert({ userId, secret, isEnabled: false, failedAttempts: 0 });
      await this.insertCodes(m, userId, codeHashes);
    });
  }

  /** Turns a pending setup on; false when it was already on (a parallel enable). */
  async enable(id: number, lastUsedAt: Date): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update(TwoFaEntity)
      .set({ isEnabled: true, failedAttempts: 0, lockedUntil: null, lastUsedAt })
      .where('id = :id AND is_enabled = :off', { id, off: false })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async replaceCodes(userId: number, codeHashes: string[]): Promise<void> {
    await this.db.transaction(async (m) => {
      await m.getRepository(TwoFaBackupCodeEntity).delete({ userId });
      await this.insertCodes(m, userId, codeHashes);
    });
  }

  /** Removes 2FA and its codes for good (hard delete, as new-api). */
  async remove(userId: number): Promise<boolean> {
    return this.db.transaction(async (m) => (await this.purge(m, userId)) > 0);
  }

  /**
   * Counts one verification attempt before the code is checked, in one conditional UPDATE, so
   * parallel guesses cannot all pass a read-then-check. False when the attempts are used up.
   */
  async reserveAttempt(id: number, max: number): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update(TwoFaEntity)
      .set({ failedAttempts: () => 'failed_attempts + 1' })
      .where('id = :id AND failed_attempts < :max', { id, max })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  unusedCodes(userId: number): Promise<TwoFaBackupCodeEntity[]> {
    return this.codes.find({ where: { userId, isUsed: false }, order: { id: 'ASC' } });
  }

  countUnusedCodes(userId: number): Promise<number> {
    return this.codes.count({ where: { userId, isUsed: false } });
  }

  /** Marks a code used; false when a parallel request used it first. */
  async useCode(id: number, usedAt: Date): Promise<boolean> {
    const result = await this.codes
      .createQueryBuilder()
      .update(TwoFaBackupCodeEntity)
      .set({ isUsed: true, usedAt })
      .where('id = :id AND is_used = :unused', { id, unused: false })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  countEnabled(): Promise<number> {
    return this.rows.count({ where: { isEnabled: true } });
  }

  private async purge(m: EntityManager, userId: number): Promise<number> {
    await m.getRepository(TwoFaBackupCodeEntity).delete({ userId });
    return (await m.getRepository(TwoFaEntity).delete({ userId })).affected ?? 0;
  }

  private async insertCodes(m: EntityManager, userId: number, codeHashes: string[]): Promise<void> {
    if (!codeHashes.length) return;
    await m.getRepository(TwoFaBackupCodeEntity).insert(codeHashes.map((codeHash) => ({ userId, codeHash, isUsed: false })));
  }
}
