import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Banner, Card, Empty, Spin, useAuth, useStatus } from '@console/kit';
import { useSelf } from '../self/useSelf';
import { GRANULARITIES, totals, type Granularity } from './aggregate';
import type { DashboardQuery } from './api';
import { DashboardFilters } from './DashboardFilters';
import { SummaryCards } from './SummaryCards';
import { TopModelsTable } from './TopModelsTable';
import { useDashboardData } from './useDashboardData';

// ECharts is the heaviest thing in the remote: fetched only when there is something to draw.
const DashboardCharts = lazy(() => import('./DashboardCharts'));

const DAY = 86_400;

function defaultQuery(): DashboardQuery {
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  const start = Math.floor(today.getTime() / 1000) - 6 * DAY;
  return { start_timestamp: start, end_timestamp: Math.floor(Date.now() / 1000) + 3600, username: '' };
}

function initialGranularity(configured: string | undefined): Granularity {
  return GRANULARITIES.includes(configured as Granularity) ? (configured as Granularity) : 'hour';
}

/** /detail: use over time by model, top models and summary cards, from the hourly `quota_data`. */
export function DashboardPage() {
  const { t } = useTranslation('user');
  const { isAdmin } = useAuth();
  const status = useStatus();
  const self = useSelf();
  const [query, setQuery] = useState(defaultQuery);
  const [granularity, setGranularity] = useState(() => initialGranularity(status.data_export_default_time));
  const data = useDashboardData(isAdmin, query, granularity !== 'hour');
  const rangeTotals = useMemo(() => totals(data.rows ?? []), [data.rows]);

  return (
    <div data-testid="dashboard-page">
      {status.enable_data_export === false && (
        <Banner type="warning" closeIcon={null} description={t('dashboard.disabled')} style={{ marginBottom: 16 }} />
      )}
      <DashboardFilters admin={isAdmin} query={query} granularity={granularity} onQuery={setQuery} onGranularity={setGranularity} />
      <SummaryCards user={self.user} range={rangeTotals} rates={data.rates} />
      <Spin spinning={data.loading} size="large" style={{ width: '100%' }}>
        {data.rows === null ? (
          <div style={{ minHeight: 320 }} data-testid="dashboard-loading" />
        ) : data.rows.length === 0 ? (
          <Card>
            <div data-testid="dashboard-empty">
              <Empty title={t('dashboard.emptyTitle')} description={t('dashboard.empty')} />
            </div>
          </Card>
        ) : (
          <>
            <Suspense fallback={<Spin size="large" style={{ width: '100%', minHeight: 320 }} />}>
              <DashboardCharts rows={data.rows} granularity={granularity} />
            </Suspense>
            <TopModelsTable rows={data.rows} />
          </>
        )}
      </Spin>
    </div>
  );
}
