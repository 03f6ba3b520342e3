import { useTranslation } from 'react-i18next';
import { Card, Space, Typography, renderQuota } from '@console/kit';
import type { SelfUser } from './useSelf';

/** Balance, used quota and request count, as the wallet and the personal page both show them. */
export function BalanceCard({ user }: { user: SelfUser | null }) {
  const { t } = useTranslation('user');
  const item = (label: string, value: string, testId: string) => (
    <div style={{ minWidth: 140 }}>
      <Typography.Text type="tertiary">{label}</Typography.Text>
      <Typography.Title heading={3} style={{ margin: 0 }}>
        <span data-testid={testId}>{user ? value : '-'}</span>
      </Typography.Title>
    </div>
  );
  return (
    <Card style={{ marginBottom: 16 }}>
      <Space wrap spacing={32}>
        {item(t('balance.current'), renderQuota(user?.quota ?? 0), 'balance-current')}
        {item(t('balance.used'), renderQuota(user?.used_quota ?? 0), 'balance-used')}
        {item(t('balance.requests'), String(user?.request_count ?? 0), 'balance-requests')}
      </Space>
    </Card>
  );
}
