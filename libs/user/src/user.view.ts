import type { UserEntity } from './user.entity.js';
import type { AdminUserView, UserProfileView } from '@gw/contracts';

/** What a user may see of themself (GET /api/user/self). Password and access token never leave. */
export interface SelfView extends UserProfileView {
  setting: string;
  permissions: Record<string, unknown>;
}

/** The entity's profile fields only: password and access token stay in the row. */
function profileFields(user: UserEntity): UserProfileView {
  return {
    id: user.id,
    username: user.username,
    display_name: user.displayName,
    role: user.role,
    status: user.status,
    email: user.email ?? '',
    github_id: user.githubId ?? '',
    discord_id: user.discordId ?? '',
    oidc_id: user.oidcId ?? '',
    wechat_id: user.wechatId ?? '',
    telegram_id: user.telegramId ?? '',
    linux_do_id: user.linuxDoId ?? '',
    group: user.group,
    quota: user.quota,
    used_quota: user.usedQuota,
    request_count: user.requestCount,
    aff_code: user.affCode ?? '',
    aff_count: user.affCount,
    aff_quota: user.affQuota,
    aff_history_quota: user.affHistoryQuota,
    inviter_id: user.inviterId,
    stripe_customer: user.stripeCustomer ?? '',
  };
}

export function toSelfView(user: UserEntity): SelfView {
  return {
    ...profileFields(user),
    setting: selfSetting(user.setting),
    permissions: permissionsFor(user.role),
  };
}

/**
 * The user's `setting` JSON without the webhook secret (threats K3: a stolen session or an XSS must not
 * read it back; new-api returns it in clear). `has_webhook_secret` tells the settings page one is saved,
 * and saving the form without a new one keeps it (UserSelfService.updateSetting).
 */
function selfSetting(raw: string | null): string {
  if (!raw) return '';
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return '';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
  const { webhook_secret: secret, ...rest } = value as Record<string, unknown>;
  return JSON.stringify({ ...rest, has_webhook_secret: typeof secret === 'string' && secret !== '' });
}

/** new-api's sidebar permissions by role. */
function permissionsFor(role: number): Record<string, unknown> {
  if (role >= 100) return { sidebar_settings: false, sidebar_modules: {} };
  if (role >= 10) return { sidebar_settings: true, sidebar_modules: { admin: { setting: false } } };
  return { sidebar_settings: true, sidebar_modules: { admin: false } };
}

/** A user as an admin sees it in lists and details: no password, access token or notification secret. */
export function toAdminView(user: UserEntity): AdminUserView {
  return {
    ...profileFields(user),
    remark: user.remark ?? '',
    created_at: user.createdAt,
    last_login_at: user.lastLoginAt,
    DeletedAt: user.deletedAt ? new Date(user.deletedAt).toISOString() : null,
  };
}
