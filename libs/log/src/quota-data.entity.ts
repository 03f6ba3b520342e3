import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@gw/database';

/** new-api's `quota_data`: consumption per user, model and hour (created_at is the hour's start). */
@Entity({ name: 'quota_data' })
export class QuotaDataEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer', default: 0 })
  userId: number;

  @Column({ type: 'varchar', length: 64, default: '' })
  username: string;

  @Column({ name: 'model_name', type: 'varchar', length: 255, default: '' })
  modelName: string;

  @Column({ name: 'created_at', type: 'bigint', default: 0, transformer: bigintNumber })
  createdAt: number;

  @Column({ name: 'token_used', type: 'bigint', default: 0, transformer: bigintNumber })
  tokenUsed: number;

  @Column({ type: 'integer', default: 0 })
  count: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  quota: number;
}
