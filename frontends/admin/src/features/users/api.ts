import { api, type Page } from '@console/kit';

export interface AdminUser {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  group: string;
  quota: number;
  used_quota: number;
  request_count: number;
  aff_count: number;
  aff_history_quota: number;
  inviter_id: number;
  remark?: string;
  DeletedAt: string | null;
}

export type ManageAction = 'promote' | 'demote' | 'disable' | 'enable' | 'delete';

export interface UserSearch {
  keyword: string;
  group: string;
}

export interface NewUser {
  username: string;
  display_name: string;
  password: string;
}

export interface UserUpdate {
  id: number;
  username: string;
  display_name: string;
  password?: string;
  group: string;
  quota: number;
  remark?: string;
}

export const usersApi = {
  list: (page: number, pageSize: number, search: UserSearch) =>
    search.keyword || search.group
      ? api.get<Page<AdminUser>>('/api/user/search', { query: { keyword: search.keyword, group: search.group, p: page, page_size: pageSize } })
      : api.get<Page<AdminUser>>('/api/user/', { query: { p: page, page_size: pageSize } }),
  get: (id: number) => api.get<AdminUser>(`/api/user/${id}`),
  groups: () => api.get<string[]>('/api/group/'),
  create: (user: NewUser) => api.post<unknown>('/api/user/', user),
  update: (user: UserUpdate) => api.put<AdminUser>('/api/user/', user),
  manage: (id: number, action: ManageAction) => api.post<Pick<AdminUser, 'status' | 'role'>>('/api/user/manage', { id, action }),
};
