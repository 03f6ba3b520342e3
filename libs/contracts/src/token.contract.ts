import { z } from 'zod';
import { characterCount } from './text.js';

/** An integer sent as a number or a numeric string (new-api's console sends numbers). */
const integer = (message: string) =>
  z
    .union(
      [
        z.number(),
        z
          .string()
          .trim()
          .regex(/^-?\d{1,16}$/, message)
          .transform(Number),
      ],
      { error: message },
    )
    .refine((n) => Number.isSafeInteger(n), message);

const flag = (name: string) => z.boolean({ error: `${name} must be true or false` });

/** The editable fields of a token; user_id, key, used_quota and status are never taken from the client. */
const tokenFields = {
  name: z
    .string({ error: 'name is required' })
    .trim()
    .min(1, 'name is required')
    .refine((name) => characterCount(name) <= 50, 'token name is too long (at most 50 characters)'),
  remain_quota: integer('remain_quota must be a non-negative integer')
    .refine((n) => n >= 0, 'remain_quota must be a non-negative integer')
    .optional()
    .default(0),
  unlimited_quota: flag('unlimited_quota').optional().default(false),
  expired_time: integer('expiry time format error').optional().default(-1),
  model_limits_enabled: flag('model_limits_enabled').optional().default(false),
  model_limits: z
    .union([z.string(), z.array(z.string()), z.null()], { error: 'model_limits must be a comma-separated list' })
    .optional()
    .transform((v) => (Array.isArray(v) ? v.join(',') : (v ?? '')))
    .refine((v) => v.length <= 1024, 'model_limits is too long'),
  allow_ips: z
    .union([z.string(), z.null()], { error: 'allow_ips must be text with one IP or CIDR per line' })
    .optional()
    .transform((v) => v ?? '')
    .refine((v) => v.length <= 65535, 'allow_ips is too long'),
  group: z
    .union([z.string().trim().max(64, 'group name is too long'), z.null()])
    .optional()
    .transform((v) => v ?? ''),
  /** new-api's cross-group retry (meaningful with the `auto` group). */
  cross_group_retry: flag('cross_group_retry').optional().default(false),
};

/** POST /api/token/: `count` (1..100) creates several, the extra ones with a random 6-character name suffix. */
export const CreateTokenSchema = z.object({
  ...tokenFields,
  count: integer('count must be an integer from 1 to 100')
    .refine((n) => n >= 1 && n <= 100, 'count must be an integer from 1 to 100')
    .optional()
    .default(1),
});
export type CreateTokenRequest = z.infer<typeof CreateTokenSchema>;

const tokenId = integer('invalid token id').refine((n) => n > 0, 'invalid token id');

/** PUT /api/token/: a full update of one of the caller's tokens. */
export const UpdateTokenSchema = z.object({ id: tokenId, ...tokenFields });
export type UpdateTokenRequest = z.infer<typeof UpdateTokenSchema>;

/** PUT /api/token/?status_only=true: only enabled (1) ↔ disabled (2). */
export const TokenStatusSchema = z.object({
  id: tokenId,
  status: z.union([z.literal(1), z.literal(2)], { error: 'status can only be 1 (enabled) or 2 (disabled)' }),
});
export type TokenStatusRequest = z.infer<typeof TokenStatusSchema>;

export const TokenIdsSchema = z.object({
  ids: z
    .array(z.union([z.number(), z.string()]), { error: 'please select at least one token' })
    .min(1, 'please select at least one token')
    .max(1000, 'too many tokens at once'),
});
export type TokenIdsRequest = z.infer<typeof TokenIdsSchema>;

/** POST /api/token/batch/keys: at most 100 keys revealed at once (new-api). */
export const TokenKeyIdsSchema = z.object({
  ids: z
    .array(z.union([z.number(), z.string()]), { error: 'please select at least one token' })
    .min(1, 'please select at least one token')
    .max(100, 'at most 100 tokens at once'),
});

/** A token as the console sees it: `key` is masked except from the reveal route. */
export interface TokenView {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string;
  used_quota: number;
  group: string;
  cross_group_retry: boolean;
  DeletedAt: null;
}
