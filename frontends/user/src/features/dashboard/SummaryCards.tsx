import { useTranslation } from 'react-i18next';
import { Card, Typography, renderQuota, shortenNumber } from '@console/kit';
import type { SelfUser } from '../self/useSelf';
import type { Totals } from './aggregate';

interface SummaryCardsProps {
  user: SelfUser | null;
  range: Totals;
  rates: { rpm: number; tpm: number };
}

/** Balance and lifetime use, then the selected range's totals and the last minute's rates. */
export function SummaryCards({ user, range, rates }: SummaryCardsProps) {
  const { t } = useTranslation('user');
  const cards: [string, string, string][] = [
    ['balance', t('dashboard.card.balance'), user ? renderQuota(user.quota) : '-'],
    ['used', t('dashboard.card.used'), user ? renderQuota(user.used_quota) : '-'],
    ['requests', t('dashboard.card.requests'), user ? shortenNumber(user.request_count) : '-'],
    ['range-quota', t('dashboard.card.rangeQuota'), renderQuota(range.quota)],
    ['range-count', t('dashboard.card.rangeCount'), shortenNumber(range.count)],
    ['range-tokens', t('dashboard.card.rangeTokens'), shortenNumber(range.tokens)],
    ['rpm', 'RPM', String(rates.rpm)],
    ['tpm', 'TPM', shortenNumber(rates.tpm)],
  ];
  return (
    <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(150px, 1fr))', gap: 12, marginBottom: 16 }}>
      {cards.map(([key, label, value]) => (
        <Card key={key} bodyStyle={{ padding: 14 }}>
          <Typography.Text type="tertiary">{label}</Typography.Text>
          <Typography.Title heading={4} style={{ margin: 0 }}>
            <span data-testid={`dashboard-card-${key}`}>{value}</span>
          </Typography.Title>
        </Card>
      ))}
    </div>
  );
}
