import { Column, CreateDateColumn, DeleteDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * new-api's `two_fas` table, column for column, so a database moved from new-api keeps its 2FA.
 * `secret` holds the TOTP secret: encrypted (`enc:v1:…`) when written here, plain base32 when it came
 * from new-api (read either way).
 */
@Entity({ name: 'two_fas' })
export class TwoFaEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer', unique: true })
  userId: number;

  @Column({ type: 'varchar', length: 255 })
  secret: string;

  @Column({ name: 'is_enabled', type: 'boolean', default: false })
  isEnabled: boolean;

  @Column({ name: 'failed_attempts', type: 'integer', default: 0 })
  failedAttempts: number;

  @Column({ name: 'locked_until', type: Date, nullable: true })
  lockedUntil: Date | null;

  @Column({ name: 'last_used_at', type: Date, nullable: true })
  lastUsedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', nullable: true })
  createdAt: Date | null;

  @UpdateDateColumn({ name: 'updated_at', nullable: true })
  updatedAt: Date | null;

  @DeleteDateColumn({ name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}

/** new-api's `two_fa_backup_codes`: bcrypt hashes of `XXXX-XXXX` codes, each usable once. */
@Entity({ name: 'two_fa_backup_codes' })
export class TwoFaBackupCodeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'code_hash', type: 'varchar', length: 255 })
  codeHash: string;

  @Column({ name: 'is_used', type: 'boolean', default: false })
  isUsed: boolean;

  @Column({ name: 'used_at', type: Date, nullable: true })
  usedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', nullable: true })
  createdAt: Date | null;

  @DeleteDateColumn({ name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}
