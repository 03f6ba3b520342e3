import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Card, renderQuota, shortenNumber } from '@console/kit';
import { Table } from '@console/kit/data';
import { topModels, type ModelTotal, type QuotaDataRow } from './aggregate';

/** The top models as numbers, beside the pie chart that shows their shares. */
export function TopModelsTable({ rows }: { rows: QuotaDataRow[] }) {
  const { t } = useTranslation('user');
  const models = useMemo(() => topModels(rows), [rows]);
  return (
    <Card title={t('dashboard.chart.topModels')} style={{ marginTop: 16 }}>
      <div data-testid="dashboard-top-models">
        <Table<ModelTotal>
          rowKey="model"
          size="small"
          pagination={false}
          dataSource={models}
          columns={[
            { title: t('logs.column.model'), dataIndex: 'model' },
            { title: t('dashboard.card.rangeQuota'), dataIndex: 'quota', render: (quota: number) => renderQuota(quota) },
            { title: t('dashboard.card.rangeCount'), dataIndex: 'count', render: (count: number) => shortenNumber(count) },
            { title: t('dashboard.card.rangeTokens'), dataIndex: 'tokens', render: (tokens: number) => shortenNumber(tokens) },
          ]}
        />
      </div>
    </Card>
  );
}
