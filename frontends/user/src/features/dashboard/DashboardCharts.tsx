import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Card, renderQuota, shortenNumber } from '@console/kit';
import { bucketLabel, toSeries, topModels, type Granularity, type Metric, type QuotaDataRow } from './aggregate';
import { EChart, type ChartOption } from './EChart';

// ECharts' default palette, assigned by the model's rank so a model keeps its colour in every chart.
const PALETTE = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de', '#3ba272', '#fc8452', '#9a60b4', '#ea7ccc'];

type ColorOf = (model: string) => string;

function colorsByRank(rows: QuotaDataRow[]): ColorOf {
  const ranked = toSeries(rows, 'hour', 'quota').models;
  const index = new Map(ranked.map((model, i) => [model, i]));
  return (model) => PALETTE[(index.get(model) ?? 0) % PALETTE.length]!;
}

function timeOption(rows: QuotaDataRow[], granularity: Granularity, metric: Metric, kind: 'bar' | 'line', colorOf: ColorOf): ChartOption {
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
      itemStyle: { color: colorOf(model) },
      data: series.values[model],
    })),
  };
}

function topModelsOption(rows: QuotaDataRow[], colorOf: ColorOf): ChartOption {
  return {
    tooltip: { trigger: 'item', valueFormatter: (value: unknown) => renderQuota(Number(value)) },
    legend: { type: 'scroll', bottom: 0 },
    series: [
      {
        type: 'pie',
        radius: ['40%', '70%'],
        data: topModels(rows).map((model) => ({ name: model.model, value: model.quota, itemStyle: { color: colorOf(model.model) } })),
      },
    ],
  };
}

/** The dashboard's charts; this module (and ECharts with it) loads only when the dashboard has data to draw. */
export default function DashboardCharts({ rows, granularity }: { rows: QuotaDataRow[]; granularity: Granularity }) {
  const { t } = useTranslation('user');
  const colorOf = useMemo(() => colorsByRank(rows), [rows]);
  const quota = useMemo(() => timeOption(rows, granularity, 'quota', 'bar', colorOf), [rows, granularity, colorOf]);
  const count = useMemo(() => timeOption(rows, granularity, 'count', 'line', colorOf), [rows, granularity, colorOf]);
  const tokens = useMemo(() => timeOption(rows, granularity, 'token_used', 'line', colorOf), [rows, granularity, colorOf]);
  const top = useMemo(() => topModelsOption(rows, colorOf), [rows, colorOf]);
  const grid = { display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(min(420px, 100%), 1fr))', gap: 16 } as const;
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
