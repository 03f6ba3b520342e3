import { useCallback, useEffect, useState } from 'react';
import { dashboardApi, type DashboardQuery } from './api';
import type { QuotaDataRow } from './aggregate';

/**
 * The rows (hourly, or per day when the chart groups by day or week) and the last minute's rates for a
 * query; `rows` is null until the first answer.
 */
export function useDashboardData(admin: boolean, query: DashboardQuery, perDay: boolean) {
  const [rows, setRows] = useState<QuotaDataRow[] | null>(null);
  const [rates, setRates] = useState({ rpm: 0, tpm: 0 });
  const [loading, setLoading] = useState(false);
  const reload = useCallback(async () => {
    setLoading(true);
    try {
      const [data, stat] = await Promise.all([
        dashboardApi.data(admin, query, perDay),
        dashboardApi.rates(admin, query.username).catch(() => null),
      ]);
      setRows(data ?? []);
      if (stat) setRates({ rpm: stat.rpm, tpm: stat.tpm });
    } catch {
      setRows((current) => current ?? []);
    } finally {
      setLoading(false);
    }
  }, [admin, query, perDay]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { rows, rates, loading, reload };
}
