import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Space, Tag, Toast, Typography } from '@console/kit';
import { optionsApi, type PerformanceStats } from '../api';

/** 123456789 -> "117.7 MB" (binary units, as the memory figures of the OS). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** A figure's colour against its threshold: red above it (relay calls refused while the monitor is on). */
const color = (value: number, threshold: number) => (threshold > 0 && Math.trunc(value) > threshold ? 'red' : 'green');

/** The performance monitor's live figures (GET /api/performance/stats) and new-api's "force GC" button. */
export function PerformancePanel({ thresholds }: { thresholds: { cpu: number; memory: number; disk: number } }) {
  const { t } = useTranslation('admin');
  const [stats, setStats] = useState<PerformanceStats | null>(null);
  const [collecting, setCollecting] = useState(false);
  const refresh = useCallback(() => optionsApi.performanceStats().then(setStats, () => undefined), []);
  useEffect(() => void refresh(), [refresh]);

  const collect = async () => {
    setCollecting(true);
    try {
      const { before, after } = await optionsApi.collectGarbage();
      Toast.success(t('settings.performance.collected', { before: formatBytes(before), after: formatBytes(after) }));
      await refresh();
    } finally {
      setCollecting(false);
    }
  };

  const status = stats?.system_status;
  return (
    <div style={{ marginBottom: 14 }} data-testid="performance-panel">
      <Space wrap style={{ marginBottom: 8 }}>
        <Typography.Text strong>{t('settings.performance.now')}</Typography.Text>
        {status && (
          <>
            <Tag color={color(status.cpu_usage, thresholds.cpu)} data-testid="performance-cpu">
              {t('settings.performance.cpu', { value: status.cpu_usage })}
            </Tag>
            <Tag color={color(status.memory_usage, thresholds.memory)} data-testid="performance-memory">
              {t('settings.performance.memory', { value: status.memory_usage })}
            </Tag>
            <Tag color={color(status.disk_usage, thresholds.disk)} data-testid="performance-disk">
              {t('settings.performance.disk', { value: status.disk_usage, total: formatBytes(stats.disk_space_info.total) })}
            </Tag>
          </>
        )}
        <Button size="small" onClick={() => void refresh()} data-testid="performance-refresh">
          {t('settings.performance.refresh')}
        </Button>
        <Button size="small" loading={collecting} onClick={() => void collect()} data-testid="performance-gc">
          {t('settings.performance.gc')}
        </Button>
      </Space>
      {stats && (
        <Typography.Text type="tertiary" size="small" style={{ display: 'block' }} data-testid="performance-process">
          {t('settings.performance.process', {
            heap: formatBytes(stats.memory_stats.alloc),
            rss: formatBytes(stats.memory_stats.sys),
            gcs: stats.memory_stats.num_gc,
          })}
        </Typography.Text>
      )}
    </div>
  );
}
