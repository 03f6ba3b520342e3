import { z } from 'zod';
import { characterCount } from './text.js';

/** Integers arrive as numbers from the console; numeric strings are accepted too (form fields). */
const integer = (message: string) =>
  z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
    z.number({ error: message }).int(message),
  );

const id = integer('id is required').pipe(z.number().positive('id is required'));

const quota = integer('quota must be an integer').pipe(
  z.number().min(0, 'quota must not be negative').max(Number.MAX_SAFE_INTEGER, 'quota is too large'),
);

/** Unix seconds; 0 = never expires. */
const expiredTime = integer('expiry time must be a unix time in seconds')
  .pipe(z.number().min(0, 'expiry time must be a unix time in seconds').max(253402300799, 'expiry time is too far away'))
  .optional();

/** The redemption code name's limit, in characters; the service checks the default name against it too. */
export const REDEMPTION_NAME_MAX = 20;
export const REDEMPTION_NAME_RULE = `redemption code name must be 1-${REDEMPTION_NAME_MAX} characters`;

const redemptionName = (min: number) =>
  z
    .string({ error: 'name must be text' })
    .trim()
    .refine((name) => characterCount(name) >= min && characterCount(name) <= REDEMPTION_NAME_MAX, REDEMPTION_NAME_RULE);

/** POST /api/redemption/. An empty name is replaced by the formatted quota in the service. */
export const CreateRedemptionSchema = z.object({
  name: redemptionName(0).optional().default(''),
  quota,
  count: integer('count must be an integer')
    .pipe(z.number().min(1, 'count must be greater than 0').max(100, 'at most 100 redemption codes can be created at once'))
    .optional()
    .default(1),
  expired_time: expiredTime.default(0),
});
export type CreateRedemptionRequest = z.infer<typeof CreateRedemptionSchema>;

/** PUT /api/redemption/ (name, quota and, when sent, expiry; only while unused). */
export const UpdateRedemptionSchema = z.object({
  id,
  name: redemptionName(1),
  quota,
  expired_time: expiredTime,
});
export type UpdateRedemptionRequest = z.infer<typeof UpdateRedemptionSchema>;

/** PUT /api/redemption/?status_only=true. */
export const RedemptionStatusSchema = z.object({
  id,
  status: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
    z.union([z.literal(1), z.literal(2)], { error: 'status must be 1 (enabled) or 2 (disabled)' }),
  ),
});
export type RedemptionStatusRequest = z.infer<typeof RedemptionStatusSchema>;

/** POST /api/user/topup. */
export const RedeemCodeSchema = z.object({
  key: z.string({ error: 'please enter a redemption code' }).trim().max(64, 'invalid redemption code').optional().default(''),
});
export type RedeemCodeRequest = z.infer<typeof RedeemCodeSchema>;

const amount = integer('top-up amount must be an integer').pipe(z.number().max(1_000_000_000, 'top-up amount is too large'));

/** POST /api/user/amount: `top_up_code` is accepted for new-api compatibility and ignored. */
export const TopUpAmountSchema = z.object({
  amount,
  top_up_code: z.string().max(64).optional(),
});
export type TopUpAmountRequest = z.infer<typeof TopUpAmountSchema>;

/** POST /api/user/pay. */
export const TopUpPaySchema = TopUpAmountSchema.extend({
  payment_method: z
    .string({ error: 'please choose a payment method' })
    .trim()
    .min(1, 'please choose a payment method')
    .max(50, 'payment method does not exist'),
});
export type TopUpPayRequest = z.infer<typeof TopUpPaySchema>;

/** A redemption code as new-api's console reads it. */
export interface RedemptionView {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  quota: number;
  created_time: number;
  redeemed_time: number;
  used_user_id: number;
  expired_time: number;
}

/** A top-up order (`top_ups`) as new-api returns it. */
export interface TopUpView {
  id: number;
  user_id: number;
  amount: number;
  money: number;
  trade_no: string;
  payment_method: string;
  create_time: number;
  complete_time: number;
  status: 'pending' | 'success' | 'expired';
}

/** POST /api/user/pay answer: the epay gateway URL and the form fields the console posts to it. */
export interface EpayForm {
  url: string;
  data: Record<string, string>;
}
