import { useTranslation } from 'react-i18next';
import { Space, Spin, Tag, renderQuota } from '@console/kit';
import type { LogStat } from './api';

/** Quota used under the current filters, and the last minute's request and token rates. */
export function LogsStatsBar({ stat, loading }: { stat: LogStat | null; loading: boolean }) {
  const { t } = useTranslation('user');
  return (
    <Spin spinning={loading}>
      <Space wrap style={{ marginBottom: 12 }}>
        <Tag color="blue" size="large">
          <span data-testid="logs-stat-quota">{t('logs.stat.quota', { value: renderQuota(stat?.quota ?? 0) })}</span>
        </Tag>
        <Tag color="pink" size="large">
          <span data-testid="logs-stat-rpm">RPM: {stat?.rpm ?? 0}</span>
        </Tag>
        <Tag color="white" size="large">
          <span data-testid="logs-stat-tpm">TPM: {stat?.tpm ?? 0}</span>
        </Tag>
      </Space>
    </Spin>
  );
}
