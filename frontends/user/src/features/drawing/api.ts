import { api, type Page } from '@console/kit';
import type { TaskFilterValues } from '../task-logs/TaskFilters';

/** One row of `/api/mj/` (new-api's Midjourney JSON; times in unix milliseconds). */
export interface DrawingTask {
  id: number;
  code: number;
  user_id: number;
  action: string;
  mj_id: string;
  prompt: string;
  prompt_en: string;
  description: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  image_url: string;
  status: string;
  progress: string;
  fail_reason: string;
  channel_id: number;
  quota: number;
}

function fetchDrawingPage(admin: boolean) {
  return (page: number, pageSize: number, filters: TaskFilterValues) =>
    api.get<Page<DrawingTask>>(admin ? '/api/mj/' : '/api/mj/self', {
      query: {
        p: page,
        page_size: pageSize,
        channel_id: admin ? filters.channelId : undefined,
        mj_id: filters.id,
        start_timestamp: filters.start === undefined ? undefined : filters.start * 1000,
        end_timestamp: filters.end === undefined ? undefined : filters.end * 1000,
      },
    });
}

/** Admins read every task (with the channel filter), users their own; drawing times filter in ms. Stable identities for usePagedQuery. */
export const fetchAllDrawings = fetchDrawingPage(true);
export const fetchOwnDrawings = fetchDrawingPage(false);
