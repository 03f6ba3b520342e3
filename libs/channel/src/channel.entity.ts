import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber, floatNumber, jsonColumn } from '@gw/database';

export const ChannelStatus = { Unknown: 0, Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;

/** new-api's `channels` table (column names kept so an existing database can be read). */
@Entity({ name: 'channels' })
export class ChannelEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer', default: 0 })
  type: number;

  /** The provider key; never leaves the channel lib except inside RelayChannel/UpstreamTarget. */
  @Column({ type: 'text' })
  key: string;

  /** new-api's column name (its JSON key is `openai_organization`). */
  @Column({ name: 'open_ai_organization', type: 'varchar', length: 255, nullable: true })
  openaiOrganization: string | null;

  @Column({ name: 'test_model', type: 'varchar', length: 255, nullable: true })
  testModel: string | null;

  @Column({ type: 'integer', default: 1 })
  status: number;

  @Column({ type: 'varchar', length: 255, default: '' })
  name: string;

  @Column({ type: 'integer', default: 0 })
  weight: number;

  @Column({ name: 'created_time', type: 'bigint', default: 0, transformer: bigintNumber })
  createdTime: number;

  @Column({ name: 'test_time', type: 'bigint', default: 0, transformer: bigintNumber })
  testTime: number;

  /** Milliseconds of the last test. */
  @Column({ name: 'response_time', type: 'integer', default: 0 })
  responseTime: number;

  @Column({ name: 'base_url', type: 'varchar', length: 512, nullable: true, default: '' })
  baseUrl: string | null;

  /**
   * Whether the base URL must stay on public addresses when the relay connects (threats S5, DNS rebinding): 1
   * when the save-time check found only public addresses (or a name an admin saved that did not resolve yet),
   * 0 when root or AllowPrivateOutboundUrls let a private one through, or the base URL is empty. Set by the
   * service on every save of the base URL, never from the request. NULL (rows from before, or written by
   * new-api) keeps the old behaviour: no check at connect time.
   */
  @Column({ name: 'base_url_public', type: 'integer', nullable: true })
  baseUrlPublic: number | null;

  @Column({ type: 'text', nullable: true })
  other: string | null;

  @Column({ type: 'double precision', default: 0, transformer: floatNumber })
  balance: number;

  @Column({ name: 'balance_updated_time', type: 'bigint', default: 0, transformer: bigintNumber })
  balanceUpdatedTime: number;

  @Column({ type: 'text', nullable: true })
  models: string | null;

  @Column({ name: 'group', type: 'varchar', length: 255, default: 'default' })
  group: string;

  @Column({ name: 'used_quota', type: 'bigint', default: 0, transformer: bigintNumber })
  usedQuota: number;

  @Column({ name: 'model_mapping', type: 'text', nullable: true })
  modelMapping: string | null;

  @Column({ name: 'status_code_mapping', type: 'varchar', length: 1024, nullable: true, default: '' })
  statusCodeMapping: string | null;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  priority: number;

  @Column({ name: 'auto_ban', type: 'integer', default: 1 })
  autoBan: number;

  @Column({ name: 'other_info', type: 'text', nullable: true })
  otherInfo: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  tag: string | null;

  @Column({ type: 'text', nullable: true })
  setting: string | null;

  @Column({ name: 'param_override', type: 'text', nullable: true })
  paramOverride: string | null;

  @Column({ name: 'header_override', type: 'text', nullable: true })
  headerOverride: string | null;

  @Column({ name: 'max_input_tokens', type: 'integer', default: 0 })
  maxInputTokens: number;

  @Column({ type: 'varchar', length: 255, nullable: true })
  remark: string | null;

  /** Multi-key state as new-api keeps it (JSON: is_multi_key, multi_key_mode, per-key status, polling index); see multi-key.ts. */
  @Column({ name: 'channel_info', type: 'text', nullable: true, transformer: jsonColumn })
  channelInfo: string | null;

  /** new-api's "other settings" (JSON: azure_responses_version, vertex_key_type, allow_service_tier, ...); its JSON key is `settings`. */
  @Column({ name: 'settings', type: 'text', nullable: true })
  otherSettings: string | null;
}
