import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber, intBoolean } from '@gw/database';

/** new-api's `logs` table (column names kept so an existing database can be read). */
@Entity({ name: 'logs' })
export class LogEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer', default: 0 })
  userId: number;

  @Column({ name: 'created_at', type: 'bigint', default: 0, transformer: bigintNumber })
  createdAt: number;

  @Column({ type: 'integer', default: 0 })
  type: number;

  @Column({ type: 'text', nullable: true })
  content: string | null;

  @Column({ type: 'varchar', length: 255, default: '' })
  username: string;

  @Column({ name: 'token_name', type: 'varchar', length: 255, default: '' })
  tokenName: string;

  @Column({ name: 'model_name', type: 'varchar', length: 255, default: '' })
  modelName: string;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  quota: number;

  @Column({ name: 'prompt_tokens', type: 'integer', default: 0 })
  promptTokens: number;

  @Column({ name: 'completion_tokens', type: 'integer', default: 0 })
  completionTokens: number;

  @Column({ name: 'use_time', type: 'integer', default: 0 })
  useTime: number;

  @Column({ name: 'is_stream', type: 'integer', default: 0, transformer: intBoolean })
  isStream: boolean;

  @Column({ name: 'channel_id', type: 'integer', default: 0 })
  channelId: number;

  @Column({ name: 'token_id', type: 'integer', default: 0 })
  tokenId: number;

  @Column({ name: 'group', type: 'varchar', length: 64, default: '' })
  group: string;

  @Column({ type: 'varchar', length: 64, default: '' })
  ip: string;

  @Column({ name: 'request_id', type: 'varchar', length: 64, default: '' })
  requestId: string;

  /** JSON text (new-api stores it as a string). */
  @Column({ type: 'text', nullable: true })
  other: string | null;
}
