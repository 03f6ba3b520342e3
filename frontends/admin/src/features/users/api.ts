import { api, type Page } from '@console/kit';
import type { AdminUserView, CreateUserRequest, ManageUserRequest, UpdateUserRequest } from '../../contracts';

/** A user row as the gateway answers it (shared with libs/contracts). */
export type AdminUser = AdminUserView;

export type ManageAction = ManageUserRequest['action'];

export interface UserSearch {
  keyword: string;
  group: string;
}

export type NewUser = Required<Pick<CreateUserRequest, 'username' | 'password'>> & { display_name: string };

/** PUT /api/user/: the id and the fields the drawer edits (the password only when typed). */
export type UserUpdate = Required<Pick<UpdateUserRequest, 'id' | 'username' | 'display_name' | 'group' | 'quota'>> &
  Pick<UpdateUserRequest, 'password' | 'remark'>;

/** A user's account at an admin-defined OAuth provider (`GET /api/user/:id/oauth/bindings`). */
export interface UserOAuthBinding {
  provider_id: number;
  provider_name: string;
  provider_slug: string;
  provider_user_id: string;
}

/** new-api's `binding_type` values and the user fields that hold them. */
export const BUILT_IN_BINDINGS = [
  ['email', 'email'],
  ['github', 'github_id'],
  ['oidc', 'oidc_id'],
  ['linuxdo', 'linux_do_id'],
  ['discord', 'discord_id'],
  ['wechat', 'wechat_id'],
  ['telegram', 'telegram_id'],
] as const satisfies readonly (readonly [string, keyof AdminUser])[];

export const usersApi = {
  list: (page: number, pageSize: number, search: UserSearch) =>
    search.keyword || search.group
      ? api.get<Page<AdminUser>>('/api/user/search', {
          query: { keyword: search.keyword, group: search.group, p: page, page_size: pageSize },
        })
      : api.get<Page<AdminUser>>('/api/user/', { query: { p: page, page_size: pageSize } }),
  get: (id: number) => api.get<AdminUser>(`/api/user/${id}`),
  groups: () => api.get<string[]>('/api/group/'),
  create: (user: NewUser) => api.post<unknown>('/api/user/', user),
  update: (user: UserUpdate) => api.put<AdminUser>('/api/user/', user),
  reset2fa: (id: number) => api.delete<unknown>(`/api/user/${id}/2fa`),
  resetPasskey: (id: number) => api.delete<unknown>(`/api/user/${id}/reset_passkey`),
  oauthBindings: (id: number) => api.get<UserOAuthBinding[]>(`/api/user/${id}/oauth/bindings`),
  removeOAuthBinding: (id: number, providerId: number) => api.delete<unknown>(`/api/user/${id}/oauth/bindings/${providerId}`),
  removeBuiltInBinding: (id: number, type: string) => api.delete<unknown>(`/api/user/${id}/bindings/${type}`),
  /** Hard delete (root rules on the server); `manage` with `delete` only deregisters. */
  remove: (id: number) => api.delete<unknown>(`/api/user/${id}`),
  manage: (id: number, action: ManageAction) => api.post<Pick<AdminUser, 'status' | 'role'>>('/api/user/manage', { id, action }),
};
