import { api, type Page } from '@console/kit';

export const TOKEN_STATUS = { enabled: 1, disabled: 2, expired: 3, exhausted: 4 } as const;

export interface Token {
  id: number;
  name: string;
  /** Masked in lists; the full key comes from POST /api/token/:id/key. */
  key: string;
  status: number;
  remain_quota: number;
  used_quota: number;
  unlimited_quota: boolean;
  /** Unix seconds, -1 = never. */
  expired_time: number;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string;
  group: string;
  /** An `auto` token moves on to the next auto group once a group's retries are spent. */
  cross_group_retry?: boolean;
  created_time: number;
  accessed_time: number;
}

export type TokenInput = Pick<
  Token,
  'name' | 'remain_quota' | 'unlimited_quota' | 'expired_time' | 'model_limits_enabled' | 'model_limits' | 'allow_ips' | 'group'
> & { cross_group_retry: boolean };

export type GroupOptions = Record<string, { desc: string; ratio: number | string }>;

export const tokensApi = {
  list: (page: number, size: number) => api.get<Page<Token>>('/api/token/', { query: { p: page, size } }),
  /** new-api answers a page, as for the list; an older gateway answers a bare array. */
  search: (keyword: string, token: string, page: number, size: number) =>
    api.get<Token[] | Page<Token>>('/api/token/search', { query: { keyword, token, p: page, size } }),
  get: (id: number) => api.get<Token>(`/api/token/${id}`),
  create: (input: TokenInput) => api.post<unknown>('/api/token/', input),
  update: (input: TokenInput & { id: number }) => api.put<Token>('/api/token/', input),
  setStatus: (id: number, status: number) => api.put<Token>('/api/token/', { id, status }, { query: { status_only: true } }),
  remove: (id: number) => api.delete<unknown>(`/api/token/${id}/`),
  removeMany: (ids: number[]) => api.post<number>('/api/token/batch', { ids }),
  revealKey: (id: number) => api.post<{ key: string }>(`/api/token/${id}/key`),
  groups: () => api.get<GroupOptions>('/api/user/self/groups'),
  models: () => api.get<string[]>('/api/user/models'),
};

/** Keys are stored without the prefix and always shown with it. */
export const withPrefix = (key: string) => (key.startsWith('sk-') ? key : `sk-${key}`);
