import { api } from '@console/kit';
import type { QuotaDataRow } from './aggregate';

export interface DashboardQuery {
  start_timestamp: number;
  end_timestamp: number;
  /** Admins only: empty = every user. */
  username: string;
}

export const dashboardApi = {
  /**
   * Hourly rows; admins see every user's (or one user's), users their own (at most a month). `perDay` asks the
   * admin overview for one row per model and UTC day (new-api's `default_time`): a quarter is then a few
   * thousand rows instead of a hundred thousand hourly ones.
   */
  data: (admin: boolean, query: DashboardQuery, perDay = false) =>
    admin
      ? api.get<QuotaDataRow[]>('/api/data/', {
          query: {
            start_timestamp: query.start_timestamp,
            end_timestamp: query.end_timestamp,
            username: query.username || undefined,
            default_time: perDay ? 'day' : undefined,
          },
        })
      : api.get<QuotaDataRow[]>('/api/data/self/', {
          query: { start_timestamp: query.start_timestamp, end_timestamp: query.end_timestamp },
        }),
  /** The last minute's rates (the stats bar of the logs page). */
  rates: (admin: boolean, username: string) =>
    api.get<{ quota: number; rpm: number; tpm: number }>(admin ? '/api/log/stat' : '/api/log/self/stat', {
      query: { type: 2, username: admin ? username || undefined : undefined },
    }),
};
