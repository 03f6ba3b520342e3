import { api } from '@console/kit';
import type { ReleaseCheckView } from '../../contracts';

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
};
