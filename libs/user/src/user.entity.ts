import { Column, DeleteDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@gw/database';

export const UserStatus = { Enabled: 1, Disabled: 2 } as const;

/** new-api's `users` table (column names kept so an existing database can be read). */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 64, unique: true })
  username: string;

  /** bcrypt hash; never leaves the user module. */
  @Column({ type: 'varchar', length: 255 })
  password: string;

  @Column({ name: 'display_name', type: 'varchar', length: 64, default: '' })
  displayName: string;

  @Column({ type: 'integer', default: 1 })
  role: number;

  @Column({ type: 'integer', default: 1 })
  status: number;

  @Column({ type: 'varchar', length: 128, nullable: true })
  email: string | null;

  @Column({ name: 'github_id', type: 'varchar', length: 64, nullable: true })
  githubId: string | null;

  @Column({ name: 'oidc_id', type: 'varchar', length: 128, nullable: true })
  oidcId: string | null;

  @Column({ name: 'wechat_id', type: 'varchar', length: 64, nullable: true })
  wechatId: string | null;

  @Column({ name: 'telegram_id', type: 'varchar', length: 64, nullable: true })
  telegramId: string | null;

  @Column({ name: 'linux_do_id', type: 'varchar', length: 64, nullable: true })
  linuxDoId: string | null;

  @Column({ name: 'discord_id', type: 'varchar', length: 64, nullable: true })
  discordId: string | null;

  /** The console access token (`Authorization` alternative to the cookie); never returned by lists. */
  @Column({ name: 'access_token', type: 'varchar', length: 64, nullable: true, unique: true })
  accessToken: string | null;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  quota: number;

  @Column({ name: 'used_quota', type: 'bigint', default: 0, transformer: bigintNumber })
  usedQuota: number;

  @Column({ name: 'request_count', type: 'integer', default: 0 })
  requestCount: number;

  @Column({ name: 'group', type: 'varchar', length: 64, default: 'default' })
  group: string;

  @Column({ name: 'aff_code', type: 'varchar', length: 32, nullable: true, unique: true })
  affCode: string | null;

  @Column({ name: 'aff_count', type: 'integer', default: 0 })
  affCount: number;

  @Column({ name: 'aff_quota', type: 'bigint', default: 0, transformer: bigintNumber })
  affQuota: number;

  @Column({ name: 'aff_history', type: 'bigint', default: 0, transformer: bigintNumber })
  affHistoryQuota: number;

  @Column({ name: 'inviter_id', type: 'integer', default: 0 })
  inviterId: number;

  @Column({ type: 'text', nullable: true })
  setting: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  remark: string | null;

  @Column({ name: 'created_at', type: 'bigint', default: 0, transformer: bigintNumber })
  createdAt: number;

  @Column({ name: 'last_login_at', type: 'bigint', default: 0, transformer: bigintNumber })
  lastLoginAt: number;

  @DeleteDateColumn({ name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}
