import { api, apiEnvelope } from '@console/kit';
import type { ChannelPage, ChannelTestResult, ChannelView } from '../../contracts';

export interface ChannelSearch {
  keyword: string;
  group: string;
  model: string;
}

/** The list switches the console keeps between visits. */
export interface ChannelListMode {
  idSort: boolean;
  tagMode: boolean;
}

export type ChannelQuery = ChannelSearch & ChannelListMode;

/** What the drawer sends: POST takes `{mode, channel}`, PUT the channel with its id. */
export interface ChannelPayload {
  id?: number;
  type: number;
  name: string;
  key?: string;
  base_url: string;
  other: string;
  openai_organization: string;
  models: string;
  group: string;
  model_mapping: string;
  status_code_mapping: string;
  param_override: string;
  header_override: string;
  test_model: string;
  auto_ban: number;
  priority: number;
  weight: number;
  tag: string;
  remark: string;
  /** new-api's other settings (JSON text); sent only where the drawer edits them (Vertex AI's key type). */
  settings?: string;
}

export type CreateMode = 'single' | 'batch' | 'multi_to_single';

export interface TagEdit {
  tag: string;
  new_tag: string | null;
  model_mapping: string | null;
  groups: string | null;
  models: string | null;
  priority: number | null;
  weight: number | null;
}

const listQuery = (page: number, pageSize: number, query: ChannelQuery) => ({
  p: page,
  page_size: pageSize,
  id_sort: query.idSort,
  tag_mode: query.tagMode,
});

export const channelsApi = {
  /** The full key (root only); 403 until this session passed `POST /api/verify` within 5 minutes. */
  revealKey: (id: number) => api.post<{ key: string }>(`/api/channel/${id}/key`, undefined, { handledStatus: 403 }),
  verify: (method: 'password' | '2fa', secret: string) =>
    api.post<unknown>('/api/verify', method === 'password' ? { method, password: secret } : { method, code: secret }),
  list: (page: number, pageSize: number, query: ChannelQuery) =>
    query.keyword || query.group || query.model
      ? api.get<ChannelPage>('/api/channel/search', {
          query: { ...listQuery(page, pageSize, query), keyword: query.keyword, group: query.group, model: query.model },
        })
      : api.get<ChannelPage>('/api/channel/', { query: listQuery(page, pageSize, query) }),
  get: (id: number) => api.get<ChannelView>(`/api/channel/${id}`),
  groups: () => api.get<string[]>('/api/group/'),
  builtInModels: () => api.get<{ id: string }[]>('/api/channel/models'),
  enabledModels: () => api.get<string[]>('/api/channel/models_enabled'),
  create: (body: { mode: CreateMode; multi_key_mode?: string; channel: ChannelPayload }) =>
    api.post<{ ids: number[] }>('/api/channel/', body),
  update: (channel: Partial<ChannelPayload> & { id: number; status?: number }) => api.put<ChannelView>('/api/channel/', channel),
  remove: (id: number) => api.delete<null>(`/api/channel/${id}`),
  removeMany: (ids: number[]) => api.post<number>('/api/channel/batch', { ids }),
  removeDisabled: () => api.delete<number>('/api/channel/disabled'),
  setTag: (ids: number[], tag: string) => api.post<number>('/api/channel/batch/tag', { ids, tag }),
  editTag: (edit: TagEdit) => api.put<number>('/api/channel/tag', edit),
  setTagEnabled: (tag: string, enabled: boolean) => api.post<number>(`/api/channel/tag/${enabled ? 'enabled' : 'disabled'}`, { tag }),
  copy: (id: number) => api.post<{ id: number }>(`/api/channel/copy/${id}`),
  fixAbilities: () => api.post<{ success: number; fails: number }>('/api/channel/fix'),
  /** The answer's `time` sits beside success and message, so the whole body is read. */
  test: async (id: number, model?: string): Promise<ChannelTestResult> => {
    const body = await apiEnvelope<unknown, { time: number }>('GET', `/api/channel/test/${id}`, { query: { model: model || undefined } });
    return { success: body.success, message: body.message, time: body.time };
  },
  testAll: () => api.get<null>('/api/channel/test'),
  updateBalance: async (id: number) =>
    (await apiEnvelope<unknown, { balance: number }>('GET', `/api/channel/update_balance/${id}`)).balance,
  updateAllBalances: () => api.get<{ updated: number }>('/api/channel/update_balance'),
  fetchModelsOf: (id: number) => api.get<string[]>(`/api/channel/fetch_models/${id}`),
  fetchModels: (type: number, baseUrl: string, key: string) =>
    api.post<string[]>('/api/channel/fetch_models', { type, base_url: baseUrl, key }),
};
