import { z } from 'zod';

/** An integer query parameter; empty means "not set" (the console sends empty filters). Up to 15 digits: drawing times are in ms. */
const intParam = (name: string) =>
  z
    .string({ error: `${name} must be an integer` })
    .trim()
    .regex(/^\d{1,15}$|^$/, `${name} must be a non-negative integer`)
    .transform((value) => (value === '' ? undefined : Number(value)))
    .optional();
const idParam = (name: string) =>
  z
    .string({ error: `${name} must be a single value` })
    .trim()
    .max(191, `${name} is too long`)
    .optional();

/**
 * GET /api/mj/ and /api/mj/self: start/end are unix milliseconds on submit_time (new-api stores drawing
 * times in ms); channel_id is honoured for admins only. Paging is read by parsePage.
 */
export const MjQuerySchema = z.object({
  channel_id: intParam('channel_id'),
  mj_id: idParam('mj_id'),
  start_timestamp: intParam('start_timestamp'),
  end_timestamp: intParam('end_timestamp'),
});
export type MjQuery = z.output<typeof MjQuerySchema>;

/**
 * GET /api/task/ and /api/task/self: start/end are unix seconds on submit_time. Paging is read by
 * parseZeroBasedPage (`p` 0-based, `page_size`); the answer's data is a plain list of tasks.
 */
export const TaskQuerySchema = z.object({
  channel_id: intParam('channel_id'),
  task_id: idParam('task_id'),
  platform: z.string().trim().max(30, 'platform is too long').optional(),
  start_timestamp: intParam('start_timestamp'),
  end_timestamp: intParam('end_timestamp'),
});
export type TaskQuery = z.output<typeof TaskQuerySchema>;
