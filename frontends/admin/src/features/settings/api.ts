import { api } from '@console/kit';
import type { AffinityCacheStats, ReleaseCheckView } from '../../contracts';

export type { AffinityCacheStats };

export type OptionMap = Record<string, string>;

export const optionsApi = {
  list: async (): Promise<OptionMap> => {
    const items = await api.get<{ key: string; value: string }[]>('/api/option/');
    return Object.fromEntries(items.map((item) => [item.key, item.value ?? '']));
  },
  save: (key: string, value: string) => api.put<null>('/api/option/', { key, value }),
  resetModelRatios: () => api.post<null>('/api/option/rest_model_ratio'),
  /** DELETE /api/log/?target_timestamp=: the number of rows removed. */
  deleteLogsBefore: (seconds: number) => api.delete<number>('/api/log/', { query: { target_timestamp: seconds }, quiet: true }),
  /** Sends a test mail with the saved SMTP settings. */
  smtpTest: (email: string) => api.post<null>('/api/option/smtp_test', { email }),
  enabledModels: () => api.get<string[]>('/api/channel/models_enabled'),
  /** The running version against the release feed's latest (the gateway reads the feed); failures are the caller's to show. */
  checkUpdate: () => api.get<ReleaseCheckView>('/api/status/update', { quiet: true }),
  performanceStats: () => api.get<PerformanceStats>('/api/performance/stats'),
  collectGarbage: () => api.post<{ before: number; after: number }>('/api/performance/gc'),
  affinityCache: () => api.get<AffinityCacheStats>('/api/option/channel_affinity_cache'),
  /** Clears one rule's pins (by name), or every pin when `rule` is undefined; the number removed. */
  clearAffinityCache: async (rule?: string) =>
    (
      await api.delete<{ deleted: number }>('/api/option/channel_affinity_cache', {
        query: rule === undefined ? { all: 'true' } : { rule_name: rule },
      })
    ).deleted,
};

/** GET /api/performance/stats (root): the machine's load and this gateway process's memory. */
export interface PerformanceStats {
  system_status: { cpu_usage: number; memory_usage: number; disk_usage: number; sampled_at: number };
  memory_stats: { alloc: number; sys: number; heap_total: number; external: number; num_gc: number };
  disk_space_info: { total: number; free: number; used: number; used_percent: number };
}
