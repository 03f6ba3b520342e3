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
    oidc_id: user.oidcId ?? '',
    wechat_id: user.wechatId ?? '',
    telegram_id: user.telegramId ?? '',
    linux_do_id: user.linuxDoId ?? '',
    discord_id: user.discordId ?? '',
    group: user.group,
    quota: user.quota,
    used_quota: user.usedQuota,
    request_count: user.requestCount,
    aff_code: user.affCode ?? '',
    aff_count: user.affCount,
    aff_quota: user.affQuota,
    aff_history_quota: user.affHistoryQuota,
    inviter_id: user.inviterId,
  };
}

export function toSelfView(user: UserEntity): SelfView {
  return {
    ...profileFields(user),
    setting: user.setting ?? '',
    permissions: permissionsFor(user.role),
  };
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
