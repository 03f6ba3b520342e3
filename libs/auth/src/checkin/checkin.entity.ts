import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@gw/database';

/** new-api's `checkins`: one row per user and day; the unique pair is what makes the reward once a day. */
@Entity({ name: 'checkins' })
@Index('idx_user_checkin_date', ['userId', 'checkinDate'], { unique: true })
export class CheckinEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  /** `YYYY-MM-DD` in the server's time zone (new-api's format). */
  @Column({ name: 'checkin_date', type: 'varchar', length: 10 })
  checkinDate: string;

  @Column({ name: 'quota_awarded', type: 'integer' })
  quotaAwarded: number;

  @Column({ name: 'created_at', type: 'bigint', default: 0, transformer: bigintNumber })
  createdAt: number;
}
