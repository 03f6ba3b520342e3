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
  manage: (id: number, action: ManageAction) => api.post<Pick<AdminUser, 'status' | 'role'>>('/api/user/manage', { id, action }),
};
