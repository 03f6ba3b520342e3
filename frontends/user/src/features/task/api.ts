import { api } from '@console/kit';
import type { TaskFilterValues } from '../task-logs/TaskFilters';

/** One row of `/api/task/` (new-api's task JSON; times in unix seconds; channel_id for admins only). */
export interface TaskRow {
  id: number;
  task_id: string;
  platform: string;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  quota: number;
  channel_id?: number;
  created_at: number;
  data: unknown;
  properties: unknown;
}

/** One 0-based page of tasks, newest first: the server answers a plain list, without a total (spec 001). */
function fetchTaskPage(admin: boolean) {
  return (p: number, pageSize: number, filters: TaskFilterValues) =>
    api.get<TaskRow[]>(admin ? '/api/task/' : '/api/task/self', {
      query: {
        p,
        page_size: pageSize,
        channel_id: admin ? filters.channelId : undefined,
        task_id: filters.id,
        start_timestamp: filters.start,
        end_timestamp: filters.end,
      },
    });
}

/** Stable identities for useLoadMoreQuery: admins read every task, users their own. */
export const fetchAllTasks = fetchTaskPage(true);
export const fetchOwnTasks = fetchTaskPage(false);
