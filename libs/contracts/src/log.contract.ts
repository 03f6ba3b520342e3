import { z } from 'zod';

/** An integer query parameter; empty means "not set" (the console sends empty filters). */
const intParam = (name: string, min = 0) =>
  z
    .string({ error: `${name} must be an integer` })
    .trim()
    .regex(/^-?\d{1,12}$|^$/, `${name} must be an integer`)
    .transform((value) => (value === '' ? undefined : Number(value)))
    .refine((value) => value === undefined || value >= min, `${name} must be at least ${min}`)
    .optional();
const textParam = (name: string) =>
  z
    .string({ error: `${name} must be a single value` })
    .trim()
    .max(255, `${name} is too long`)
    .optional();

/**
 * Filters of GET /api/log/, /api/log/self/ and their /stat (new-api). Paging (p, page_size, ps,
 * size) is read by parsePage; username and channel are honoured for admins only.
 */
export const LogQuerySchema = z.object({
  type: intParam('type'),
  username: textParam('username'),
  token_name: textParam('token_name'),
  model_name: textParam('model_name'),
  start_timestamp: intParam('start_timestamp'),
  end_timestamp: intParam('end_timestamp'),
  channel: intParam('channel'),
  group: textParam('group'),
  request_id: textParam('request_id'),
  /**
   * Keyset paging (ours): the `next_cursor` of the previous page; the page then starts after that row
   * instead of skipping `(p - 1) * page_size` rows, so a deep page costs what the first one does.
   */
  cursor: z
    .string({ error: 'cursor must be a single value' })
    .trim()
    .regex(/^(\d{1,12}_\d{1,12})?$/, 'cursor must be the next_cursor of a previous page')
    .transform((value) => {
      if (!value) return undefined;
      const [createdAt, id] = value.split('_').map(Number);
      return { createdAt: createdAt!, id: id! };
    })
    .optional(),
});
export type LogQuery = z.output<typeof LogQuerySchema>;

/** DELETE /api/log/?target_timestamp= (unix seconds): rows created before it are removed. */
export const DeleteLogsSchema = z.object({
  target_timestamp: z
    .string({ error: 'target timestamp is required' })
    .trim()
    .regex(/^\d{1,12}$/, 'target timestamp must be a unix timestamp in seconds')
    .transform(Number)
    .refine((value) => value > 0, 'target timestamp is required'),
});

/** GET /api/data/ and /api/data/self/ (dashboard aggregates). */
export const QuotaDataQuerySchema = z.object({
  username: textParam('username'),
  start_timestamp: intParam('start_timestamp'),
  end_timestamp: intParam('end_timestamp'),
  /**
   * The chart granularity new-api's console sends (hour, day or week; new-api ignores it). With day or week
   * the admin overviews answer whole UTC days as one row per day, so a 90-day chart is not 2,160 hours.
   */
  default_time: textParam('default_time'),
});
export type QuotaDataQuery = z.output<typeof QuotaDataQuerySchema>;
