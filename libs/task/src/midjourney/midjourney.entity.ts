import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@gw/database';

/** Midjourney task states as the proxy reports them ('' before the first poll). */
export const MjStatus = {
  NotStart: 'NOT_START',
  Submitted: 'SUBMITTED',
  InProgress: 'IN_PROGRESS',
  Failure: 'FAILURE',
  Success: 'SUCCESS',
  Modal: 'MODAL',
} as const;

/**
 * new-api's `midjourneys` row, column for column, so rows written by new-api keep polling here. Times
 * are unix milliseconds (new-api stores Midjourney times in ms, unlike every other table).
 */
@Entity({ name: 'midjourneys' })
export class MidjourneyEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer', default: 0 })
  code: number;

  @Column({ name: 'user_id', type: 'integer', default: 0 })
  userId: number;

  @Column({ type: 'varchar', length: 40, nullable: true })
  action: string | null;

  @Column({ name: 'mj_id', type: 'varchar', length: 191, nullable: true })
  mjId: string | null;

  @Column({ type: 'text', nullable: true })
  prompt: string | null;

  @Column({ name: 'prompt_en', type: 'text', nullable: true })
  promptEn: string | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'text', nullable: true })
  state: string | null;

  @Column({ name: 'submit_time', type: 'bigint', default: 0, transformer: bigintNumber })
  submitTime: number;

  @Column({ name: 'start_time', type: 'bigint', default: 0, transformer: bigintNumber })
  startTime: number;

  @Column({ name: 'finish_time', type: 'bigint', default: 0, transformer: bigintNumber })
  finishTime: number;

  @Column({ name: 'image_url', type: 'text', nullable: true })
  imageUrl: string | null;

  @Column({ name: 'video_url', type: 'text', nullable: true })
  videoUrl: string | null;

  @Column({ name: 'video_urls', type: 'text', nullable: true })
  videoUrls: string | null;

  @Column({ type: 'varchar', length: 20, nullable: true })
  status: string | null;

  @Column({ type: 'varchar', length: 30, nullable: true })
  progress: string | null;

  @Column({ name: 'fail_reason', type: 'text', nullable: true })
  failReason: string | null;

  @Column({ name: 'channel_id', type: 'integer', default: 0 })
  channelId: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  quota: number;

  @Column({ name: 'token_id', type: 'integer', default: 0 })
  tokenId: number;

  @Column({ name: 'billing_channel_id', type: 'integer', default: 0 })
  billingChannelId: number;

  @Column({ type: 'text', nullable: true })
  buttons: string | null;

  @Column({ type: 'text', nullable: true })
  properties: string | null;
}
