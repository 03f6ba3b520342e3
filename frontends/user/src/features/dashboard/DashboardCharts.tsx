import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Card, renderQuota, shortenNumber } from '@console/kit';
import { bucketLabel, toSeries, topModels, type Granularity, type Metric, type QuotaDataRow } from './aggregate';
import { EChart, type ChartOption } from './EChart';

function timeOption(rows: QuotaDataRow[], granularity: Granularity, metric: Metric, kind: 'bar' | 'line'): ChartOption {
  const series = toSeries(rows, granularity, metric);
  const format = metric === 'quota' ? (value: number) => renderQuota(value) : (value: number) => shortenNumber(value);
  return {
    tooltip: { trigger: 'axis', valueFormatter: (value: unknown) => format(Number(value)) },
    legend: { type: 'scroll', top: 0 },
    grid: { left: 8, right: 16, top: 40, bottom: 8, containLabel: true },
    xAxis: { type: 'category', data: series.buckets.map((bucket) => bucketLabel(bucket, granularity)) },
    yAxis: { type: 'value', axisLabel: { formatter: (value: number) => format(value) } },
    series: series.models.map((model) => ({
      name: model,
      type: kind,
      stack: kind === 'bar' ? 'total' : undefined,
      smooth: kind === 'line',
      data: series.values[model],
    })),
  };
}

function topModelsOption(rows: QuotaDataRow[]): ChartOption {
  return {
    tooltip: { trigger: 'item', valueFormatter: (value: unknown) => renderQuota(Number(value)) },
    legend: { type: 'scroll', bottom: 0 },
    series: [{ type: 'pie', radius: ['40%', '70%'], data: topModels(rows).map((model) => ({ name: model.model, value: model.quota })) }],
  };
}

/** The dashboard's charts; this module (and ECharts with it) loads only when the dashboard has data to draw. */
export default function DashboardCharts({ rows, granularity }: { rows: QuotaDataRow[]; granularity: Granularity }) {
  const { t } = useTranslation('user');
  const quota = useMemo(() => timeOption(rows, granularity, 'quota', 'bar'), [rows, granularity]);
  const count = useMemo(() => timeOption(rows, granularity, 'count', 'line'), [rows, granularity]);
  const tokens = useMemo(() => timeOption(rows, granularity, 'token_used', 'line'), [rows, granularity]);
  const top = useMemo(() => topModelsOption(rows), [rows]);
  const grid = { display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(420px, 1fr))', gap: 16 } as const;
  return (
    <div style={grid}>
      <Card title={t('dashboard.chart.quota')}>
        <EChart option={quota} testId="chart-quota" />
      </Card>
      <Card title={t('dashboard.chart.topModels')}>
        <EChart option={top} testId="chart-top-models" />
      </Card>
      <Card title={t('dashboard.chart.count')}>
        <EChart option={count} testId="chart-count" />
      </Card>
      <Card title={t('dashboard.chart.tokens')}>
        <EChart option={tokens} testId="chart-tokens" />
      </Card>
    </div>
  );
}
