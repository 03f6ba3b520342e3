import { z } from 'zod';
import { nameText } from './text.js';

const optionalText = (max: number, message: string) => z.string().max(max, message).optional();
const displayName = nameText(20, 'display name must be at most 20 characters').optional();
const USERNAME_TOO_LONG = 'username must be at most 12 characters';

/** POST /api/user/ (admin). Presence is checked by the service ('username and password cannot be empty'). */
export const CreateUserSchema = z.object({
  username: nameText(12, USERNAME_TOO_LONG).optional().default(''),
  display_name: displayName,
  password: z.string().max(20, 'password must be at most 20 characters').optional().default(''),
});
export type CreateUserRequest = z.infer<typeof CreateUserSchema>;

/** PUT /api/user/ (admin). */
export const UpdateUserSchema = z.object({
  id: z.coerce.number({ error: 'id is required' }).int('id is required').positive('id is required'),
  username: nameText(12, USERNAME_TOO_LONG)
    .refine((name) => name.length > 0, 'username cannot be empty')
    .optional(),
  display_name: displayName,
  group: z.string().trim().min(1, 'group cannot be empty').max(64, 'group must be at most 64 characters').optional(),
  quota: z
    .number({ error: 'quota must be an integer' })
    .int('quota must be an integer')
    .min(0, 'quota must not be negative')
    .max(Number.MAX_SAFE_INTEGER, 'quota is too large')
    .optional(),
  remark: optionalText(255, 'remark must be at most 255 characters'),
  password: z.string().max(20, 'password must be at most 20 characters').optional(),
});
export type UpdateUserRequest = z.infer<typeof UpdateUserSchema>;

export const ManageUserSchema = z.object({
  id: z.coerce.number({ error: 'id is required' }).int('id is required').positive('id is required'),
  action: z.enum(['promote', 'demote', 'disable', 'enable', 'delete'], { error: 'invalid action' }),
});
export type ManageUserRequest = z.infer<typeof ManageUserSchema>;

export const SearchUsersSchema = z.object({
  keyword: z.string().max(64, 'keyword is too long').optional().default(''),
  group: z.string().max(64, 'group is too long').optional().default(''),
});

/** PUT /api/user/self: role, quota, group, status and id are not in the schema, so they are dropped. */
export const UpdateSelfSchema = z.object({
  display_name: displayName,
  password: z.string().max(20, 'password must be at most 20 characters').optional(),
  original_password: z.string().max(64).optional(),
});
export type UpdateSelfRequest = z.infer<typeof UpdateSelfSchema>;

export const AffTransferSchema = z.object({
  quota: z.number({ error: 'quota must be an integer' }).int('quota must be an integer').max(Number.MAX_SAFE_INTEGER, 'quota is too large'),
});

export const UserSettingSchema = z.object({
  notify_type: z.enum(['email', 'webhook'], { error: 'notify_type must be email or webhook' }).optional().default('email'),
  quota_warning_threshold: z
    .number({ error: 'quota_warning_threshold must be a number' })
    .min(0, 'quota_warning_threshold must not be negative')
    .max(Number.MAX_SAFE_INTEGER)
    .optional(),
  webhook_url: z.string().trim().max(1024, 'webhook URL is too long').optional().default(''),
  /** Empty keeps the saved secret (it is never read back); clear_webhook_secret removes it. */
  webhook_secret: z.string().max(256, 'webhook secret is too long').optional().default(''),
  clear_webhook_secret: z.boolean({ error: 'clear_webhook_secret must be a boolean' }).optional().default(false),
  notification_email: z.string().trim().max(128, 'email is too long').optional().default(''),
  accept_unset_model_ratio_model: z.boolean({ error: 'accept_unset_model_ratio_model must be a boolean' }).optional().default(false),
  record_ip_log: z.boolean({ error: 'record_ip_log must be a boolean' }).optional().default(false),
});
export type UserSettingRequest = z.infer<typeof UserSettingSchema>;

/** The fields every view of a user shares: identity, bindings, balance and invites (never secrets). */
export interface UserProfileView {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  github_id: string;
  discord_id: string;
  oidc_id: string;
  wechat_id: string;
  telegram_id: string;
  linux_do_id: string;
  group: string;
  quota: number;
  used_quota: number;
  request_count: number;
  aff_code: string;
  aff_count: number;
  aff_quota: number;
  aff_history_quota: number;
  inviter_id: number;
  /** The Stripe customer id new-api recorded for the user's payments. */
  stripe_customer: string;
}

/** The user list/detail row an admin sees: no password, access token or notification secret. */
export interface AdminUserView extends UserProfileView {
  remark: string;
  created_at: number;
  last_login_at: number;
  DeletedAt: string | null;
}
