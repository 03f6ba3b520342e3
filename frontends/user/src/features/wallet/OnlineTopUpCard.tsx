import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Banner, Button, Card, Modal, Space, Toast, Typography } from '@console/kit';
import { InputNumber } from '@console/kit/data';
import { amountPresets } from './amount-presets';
import { submitPayForm, walletApi, type PayMethod, type TopUpInfo } from './api';

const QUOTE_DELAY_MS = 300;

/** The server's price for an amount, asked again (debounced) whenever the amount changes. */
function usePayable(amount: number, enabled: boolean) {
  const [price, setPrice] = useState<string | null>(null);
  useEffect(() => {
    setPrice(null);
    if (!enabled || !Number.isInteger(amount) || amount < 1) return;
    let live = true;
    const timer = setTimeout(() => {
      walletApi.quote(amount).then(
        (quoted) => live && setPrice(quoted),
        () => live && setPrice(null),
      );
    }, QUOTE_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [amount, enabled]);
  return price;
}

/** Online payment: amount (presets, minimum), payment method, the server's price, then the gateway's form. */
export function OnlineTopUpCard({ info }: { info: TopUpInfo }) {
  const { t } = useTranslation('user');
  const min = Math.max(1, info.min_topup || 1);
  const [amount, setAmount] = useState(min);
  const [paying, setPaying] = useState(false);
  const price = usePayable(amount, info.enable_online_topup);

  if (!info.enable_online_topup) {
    return (
      <Card title={t('wallet.onlineTitle')} style={{ marginBottom: 16 }}>
        <div data-testid="online-disabled">
          <Banner type="info" closeIcon={null} description={t('wallet.onlineDisabled')} />
        </div>
      </Card>
    );
  }

  const pay = (method: PayMethod) => {
    if (!Number.isInteger(amount) || amount < min) return Toast.error(t('wallet.belowMinimum', { min }));
    Modal.confirm({
      title: t('wallet.confirmTitle'),
      content: t('wallet.confirmBody', { amount, price: price ?? '-', method: method.name }),
      okText: t('wallet.pay'),
      cancelText: t('cancel'),
      onOk: async () => {
        setPaying(true);
        try {
          submitPayForm(await walletApi.pay(amount, method.type));
        } catch {
          // Shown by the API client.
        } finally {
          setPaying(false);
        }
      },
    });
  };

  return (
    <Card title={t('wallet.onlineTitle')} style={{ marginBottom: 16 }}>
      <Space vertical align="start" spacing={12} style={{ width: '100%' }}>
        <Space wrap>
          {amountPresets(info).map((preset) => (
            <Button
              key={preset}
              type={preset === amount ? 'primary' : 'tertiary'}
              onClick={() => setAmount(preset)}
              data-testid={`amount-preset-${preset}`}
            >
              {preset}
            </Button>
          ))}
        </Space>
        <Space wrap>
          <InputNumber
            value={amount}
            min={1}
            precision={0}
            onNumberChange={(value) => setAmount(Math.max(1, Math.floor(Number(value) || 1)))}
            style={{ width: 200 }}
            data-testid="topup-amount"
          />
          <Typography.Text type="tertiary">{t('wallet.minimum', { min })}</Typography.Text>
        </Space>
        <Typography.Text>
          <span data-testid="topup-price">{t('wallet.payable', { price: price ?? '-' })}</span>
        </Typography.Text>
        <Space wrap>
          {info.pay_methods.map((method) => (
            <Button
              key={method.type}
              loading={paying}
              onClick={() => pay(method)}
              style={method.color ? { color: method.color } : undefined}
              data-testid={`pay-${method.type}`}
            >
              {method.name}
            </Button>
          ))}
        </Space>
      </Space>
    </Card>
  );
}
