import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@gw/database';

export const TopUpStatus = { Pending: 'pending', Success: 'success', Expired: 'expired' } as const;
export type TopUpStatusValue = (typeof TopUpStatus)[keyof typeof TopUpStatus];

/** The provider that must confirm an order; a callback from another provider never completes it. */
export const EPAY_PROVIDER = 'epay';

/** new-api's `top_ups` table: one online payment order. */
@Entity({ name: 'top_ups' })
export class TopUpEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer', default: 0 })
  userId: number;

  /** Units bought (currency units, as new-api): credited as amount × QuotaPerUnit. */
  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  amount: number;

  /** What the user pays, in the payment currency, rounded to cents. */
  @Column({ type: 'double precision', default: 0 })
  money: number;

  @Column({ name: 'trade_no', type: 'varchar', length: 255, unique: true })
  tradeNo: string;

  @Column({ name: 'payment_method', type: 'varchar', length: 50, default: '' })
  paymentMethod: string;

  @Column({ name: 'payment_provider', type: 'varchar', length: 50, default: '' })
  paymentProvider: string;

  @Column({ name: 'create_time', type: 'bigint', default: 0, transformer: bigintNumber })
  createTime: number;

  @Column({ name: 'complete_time', type: 'bigint', default: 0, transformer: bigintNumber })
  completeTime: number;

  @Column({ type: 'varchar', length: 32, default: TopUpStatus.Pending })
  status: string;
}
