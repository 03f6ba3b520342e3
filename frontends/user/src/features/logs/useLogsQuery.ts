import { useCallback, useEffect, useState } from 'react';
import { usePagedQuery, type FetchedPage } from '@console/kit';
import { logsApi, type LogFilters, type LogRow, type LogStat } from './api';

const fetchAdminPage = (page: number, pageSize: number, filters: LogFilters): Promise<FetchedPage<LogRow>> =>
  logsApi.list(true, filters, page, pageSize);
const fetchOwnPage = (page: number, pageSize: number, filters: LogFilters): Promise<FetchedPage<LogRow>> =>
  logsApi.list(false, filters, page, pageSize);

/** One page of log rows: no request asks the server for more than the page size. */
export function useLogsQuery(admin: boolean, page: number, pageSize: number, filters: LogFilters) {
  return usePagedQuery(admin ? fetchAdminPage : fetchOwnPage, page, pageSize, filters);
}

/** The stats bar for the same filters; `null` until it answers (or when it failed). */
export function useLogStat(admin: boolean, filters: LogFilters) {
  const [stat, setStat] = useState<LogStat | null>(null);
  const [loading, setLoading] = useState(false);
  const reload = useCallback(async () => {
    setLoading(true);
    try {
      setStat(await logsApi.stat(admin, filters));
    } catch {
      setStat(null);
    } finally {
      setLoading(false);
    }
  }, [admin, filters]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { stat, loading, reload };
}
