import { Column, DeleteDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@gw/database';

export const RedemptionStatus = { Unused: 1, Disabled: 2, Used: 3 } as const;

/** new-api's `redemptions` table (column names kept so an existing database can be read). */
@Entity({ name: 'redemptions' })
export class RedemptionEntity {
  @PrimaryGeneratedColumn()
  id: number;

  /** The admin who created the code. */
  @Column({ name: 'user_id', type: 'integer', default: 0 })
  userId: number;

  /** The code itself; only admins ever read it back. */
  @Column({ type: 'varchar', length: 32, unique: true })
  key: string;

  @Column({ type: 'integer', default: RedemptionStatus.Unused })
  status: number;

  @Column({ type: 'varchar', length: 255, default: '' })
  name: string;

  @Column({ type: 'bigint', default: 100, transformer: bigintNumber })
  quota: number;

  @Column({ name: 'created_time', type: 'bigint', default: 0, transformer: bigintNumber })
  createdTime: number;

  @Column({ name: 'redeemed_time', type: 'bigint', default: 0, transformer: bigintNumber })
  redeemedTime: number;

  @Column({ name: 'used_user_id', type: 'integer', default: 0 })
  usedUserId: number;

  /** Unix seconds; 0 = never expires. */
  @Column({ name: 'expired_time', type: 'bigint', default: 0, transformer: bigintNumber })
  expiredTime: number;

  @DeleteDateColumn({ name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}
