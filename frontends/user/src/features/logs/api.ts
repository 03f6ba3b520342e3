import { api, type Page } from '@console/kit';
import type { AffinityUsageStats } from '../../../../../libs/contracts/src/channel-affinity.contract.ts';
import type { LogView } from '../../../../../libs/contracts/src/log-view.contract.ts';

/** GET /api/log/channel_affinity_usage_cache. */
export type AffinityUsage = AffinityUsageStats;

/** Log types (spec 001 §4); 0 means "all" in the filter. */
export const LOG_TYPE = { all: 0, topUp: 1, consume: 2, manage: 3, system: 4, error: 5, refund: 6 } as const;

/** A row of GET /api/log/ (admin) or /api/log/self/ (own rows; channel fields blanked, `other` stripped of admin keys). */
export type LogRow = LogView;

/** The filters the page sends; empty strings and 0 mean "not set". */
export interface LogFilters {
  type: number;
  token_name: string;
  model_name: string;
  group: string;
  start_timestamp: number;
  end_timestamp: number;
  /** Admins only. */
  username: string;
  channel: string;
}

export interface LogStat {
  quota: number;
  rpm: number;
  tpm: number;
}

/** What the admin sees about a user when clicking a name in the list. */
export interface LogUserInfo {
  id: number;
  username: string;
  display_name: string;
  group: string;
  quota: number;
  used_quota: number;
  request_count: number;
  email: string;
  aff_count?: number;
  inviter_id?: number;
}

function filterQuery(filters: LogFilters, admin: boolean) {
  return {
    type: filters.type || undefined,
    token_name: filters.token_name || undefined,
    model_name: filters.model_name || undefined,
    group: filters.group || undefined,
    start_timestamp: filters.start_timestamp || undefined,
    end_timestamp: filters.end_timestamp || undefined,
    // The server ignores these for a user's own view; not sending them keeps the URL honest.
    username: admin ? filters.username || undefined : undefined,
    channel: admin ? filters.channel || undefined : undefined,
  };
}

export const logsApi = {
  /** One page only: the server never answers more than page_size rows. */
  list: (admin: boolean, filters: LogFilters, page: number, pageSize: number) =>
    api.get<Page<LogRow> & { total_capped?: boolean }>(admin ? '/api/log/' : '/api/log/self/', {
      query: { ...filterQuery(filters, admin), p: page, page_size: pageSize },
    }),
  stat: (admin: boolean, filters: LogFilters) =>
    api.get<LogStat>(admin ? '/api/log/stat' : '/api/log/self/stat', { query: filterQuery(filters, admin) }),
  user: (id: number) => api.get<LogUserInfo>(`/api/user/${id}`),
  /** Admins: the traffic and prompt-cache hits of one channel affinity key over its window. */
  affinityUsage: (rule: string, group: string, fingerprint: string) =>
    api.get<AffinityUsage>('/api/log/channel_affinity_usage_cache', {
      query: { rule_name: rule, using_group: group, key_fp: fingerprint },
    }),
};
