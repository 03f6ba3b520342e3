import { Column, DeleteDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber, intBoolean } from '@gw/database';

export const TokenStatus = { Enabled: 1, Disabled: 2, Expired: 3, Exhausted: 4 } as const;

/** new-api's `tokens` table (column names kept so an existing database can be read). */
@Entity({ name: 'tokens' })
export class TokenEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer', default: 0 })
  userId: number;

  /** 48 alphanumerics, stored without `sk-`; never leaves the token lib unmasked except through the reveal route. */
  @Column({ type: 'varchar', length: 128 })
  key: string;

  @Column({ type: 'integer', default: 1 })
  status: number;

  @Column({ type: 'varchar', length: 255, default: '' })
  name: string;

  @Column({ name: 'created_time', type: 'bigint', default: 0, transformer: bigintNumber })
  createdTime: number;

  @Column({ name: 'accessed_time', type: 'bigint', default: 0, transformer: bigintNumber })
  accessedTime: number;

  /** Unix seconds; -1 = never. */
  @Column({ name: 'expired_time', type: 'bigint', default: -1, transformer: bigintNumber })
  expiredTime: number;

  @Column({ name: 'remain_quota', type: 'bigint', default: 0, transformer: bigintNumber })
  remainQuota: number;

  @Column({ name: 'unlimited_quota', type: 'integer', default: 0, transformer: intBoolean })
  unlimitedQuota: boolean;

  @Column({ name: 'model_limits_enabled', type: 'integer', default: 0, transformer: intBoolean })
  modelLimitsEnabled: boolean;

  /** Comma-separated model names. */
  @Column({ name: 'model_limits', type: 'varchar', length: 1024, default: '' })
  modelLimits: string;

  /** One IP or CIDR per line (commas accepted too). */
  @Column({ name: 'allow_ips', type: 'text', nullable: true })
  allowIps: string | null;

  @Column({ name: 'used_quota', type: 'bigint', default: 0, transformer: bigintNumber })
  usedQuota: number;

  @Column({ name: 'group', type: 'varchar', length: 64, default: '' })
  group: string;

  /** new-api's cross-group retry: with group `auto`, a failed request may move on to the next group. */
  @Column({ name: 'cross_group_retry', type: 'integer', default: 0, transformer: intBoolean })
  crossGroupRetry: boolean;

  @DeleteDateColumn({ name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}
