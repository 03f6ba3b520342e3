import type { TaskEntity } from './task.entity.js';

/** A task as clients read it (new-api's TaskDto); private data (keys, billing context) never leaves. */
export function toTaskDto(row: TaskEntity, options: { withChannel: boolean }): Record<string, unknown> {
  const dto: Record<string, unknown> = {
    id: row.id,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    task_id: row.taskId ?? '',
    platform: row.platform ?? '',
    user_id: row.userId,
    group: row.group ?? '',
    quota: row.quota,
    action: row.action ?? '',
    status: row.status ?? '',
    fail_reason: row.failReason ?? '',
    result_url: row.privateData?.result_url ?? '',
    submit_time: row.submitTime,
    start_time: row.startTime,
    finish_time: row.finishTime,
    progress: row.progress ?? '',
    properties: row.properties ?? {},
    data: row.data ?? null,
  };
  if (options.withChannel) dto.channel_id = row.channelId;
  return dto;
}
