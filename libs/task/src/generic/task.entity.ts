import type { TaskExprSnapshot } from '../shared/task-expression.js';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@gw/database';
import { jsonText } from '../shared/json-text.js';

/** States of a `tasks` row (Suno, video); '' means still being submitted. */
export const TaskStatus = {
  NotStart: 'NOT_START',
  Submitted: 'SUBMITTED',
  Queued: 'QUEUED',
  InProgress: 'IN_PROGRESS',
  Failure: 'FAILURE',
  Success: 'SUCCESS',
  Unknown: 'UNKNOWN',
} as const;

/** Never shown to users: may hold a provider key. Billing context for refunds and completion adjustments. */
export interface TaskPrivateData {
  key?: string;
  upstream_task_id?: string;
  result_url?: string;
  billing_source?: string;
  token_id?: number;
  billing_context?: {
    model_price?: number;
    group_ratio?: number;
    model_ratio?: number;
    other_ratios?: Record<string, number>;
    origin_model_name?: string;
    per_call_billing?: boolean;
    /** The price of one call before other_ratios (quota units), to re-price with the final ratios. */
    per_call_quota?: number;
    /** billing_setting.minimum_charge at submit: a settlement below 10 quota is raised to 10. */
    minimum_charge?: boolean;
    /** Priced by a task expression: the expression, facts, request values and conversion, as at submit. */
    billing_expr?: TaskExprSnapshot;
  };
}

export interface TaskProperties {
  input?: string;
  upstream_model_name?: string;
  origin_model_name?: string;
}

/** new-api's `tasks` row (Suno, video): same columns, times in unix seconds, JSON columns as text. */
@Entity({ name: 'tasks' })
export class TaskEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'created_at', type: 'bigint', default: 0, transformer: bigintNumber })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', default: 0, transformer: bigintNumber })
  updatedAt: number;

  @Column({ name: 'task_id', type: 'varchar', length: 191, nullable: true })
  taskId: string | null;

  @Column({ type: 'varchar', length: 30, nullable: true })
  platform: string | null;

  @Column({ name: 'user_id', type: 'integer', default: 0 })
  userId: number;

  @Column({ type: 'varchar', length: 50, nullable: true })
  group: string | null;

  @Column({ name: 'channel_id', type: 'integer', default: 0 })
  channelId: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  quota: number;

  @Column({ type: 'varchar', length: 40, nullable: true })
  action: string | null;

  @Column({ type: 'varchar', length: 20, nullable: true })
  status: string | null;

  @Column({ name: 'fail_reason', type: 'text', nullable: true })
  failReason: string | null;

  @Column({ name: 'submit_time', type: 'bigint', default: 0, transformer: bigintNumber })
  submitTime: number;

  @Column({ name: 'start_time', type: 'bigint', default: 0, transformer: bigintNumber })
  startTime: number;

  @Column({ name: 'finish_time', type: 'bigint', default: 0, transformer: bigintNumber })
  finishTime: number;

  @Column({ type: 'varchar', length: 20, nullable: true })
  progress: string | null;

  @Column({ type: 'text', nullable: true, transformer: jsonText })
  properties: TaskProperties | null;

  @Column({ name: 'private_data', type: 'text', nullable: true, transformer: jsonText })
  privateData: TaskPrivateData | null;

  @Column({ type: 'text', nullable: true, transformer: jsonText })
  data: unknown;
}
