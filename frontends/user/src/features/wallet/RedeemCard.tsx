import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Banner, Button, Card, Input, Space, Toast, renderQuota, useStatus } from '@console/kit';
import { walletApi } from './api';

interface RedeemCardProps {
  topUpLink: string;
  onRedeemed(): void;
}

/** Redeem a code; the credited amount is shown until the next code. */
export function RedeemCard({ topUpLink, onRedeemed }: RedeemCardProps) {
  const { t } = useTranslation('user');
  const status = useStatus();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [credited, setCredited] = useState<number | null>(null);
  const link = topUpLink || status.top_up_link || '';

  const redeem = async () => {
    if (!code.trim()) return Toast.warning(t('wallet.enterCode'));
    setBusy(true);
    try {
      const quota = await walletApi.redeem(code.trim());
      setCredited(quota);
      setCode('');
      Toast.success(t('wallet.redeemed', { amount: renderQuota(quota) }));
      onRedeemed();
    } catch {
      // Shown by the API client.
    } finally {
      setBusy(false);
    }
  };
  const openLink = () => {
    if (!link) return Toast.error(t('wallet.noTopUpLink'));
    window.open(link, '_blank', 'noopener,noreferrer');
  };

  return (
    <Card title={t('wallet.redeemTitle')} style={{ marginBottom: 16 }}>
      {credited !== null && (
        <div data-testid="redeem-result" style={{ marginBottom: 12 }}>
          <Banner type="success" closeIcon={null} description={t('wallet.redeemed', { amount: renderQuota(credited) })} />
        </div>
      )}
      <Space wrap>
        <Input
          value={code}
          onChange={setCode}
          onEnterPress={() => void redeem()}
          placeholder={t('wallet.codePlaceholder')}
          style={{ width: 320 }}
          data-testid="redeem-code"
        />
        <Button type="primary" theme="solid" loading={busy} onClick={() => void redeem()} data-testid="redeem-submit">
          {t('wallet.redeem')}
        </Button>
        <Button onClick={openLink} data-testid="topup-link">
          {t('wallet.buyCode')}
        </Button>
      </Space>
    </Card>
  );
}
