import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Input, Modal, Space, Toast, Typography, copyText, quotaPerUnit, renderQuota } from '@console/kit';
import { InputNumber } from '@console/kit/data';
import type { SelfUser } from '../self/useSelf';
import { personalApi } from './api';

/** The invite link, what invites earned, and moving those earnings into the balance. */
export function InviteCard({ user, onChanged }: { user: SelfUser | null; onChanged(): void }) {
  const { t } = useTranslation('user');
  const [code, setCode] = useState('');
  const [transferOpen, setTransferOpen] = useState(false);
  const [amount, setAmount] = useState(0);
  useEffect(() => {
    personalApi.affCode().then(setCode, () => undefined);
  }, []);
  const link = code ? `${window.location.origin}/register?aff=${encodeURIComponent(code)}` : '';
  const minimum = quotaPerUnit();

  const openTransfer = () => {
    setAmount(user?.aff_quota ?? 0);
    setTransferOpen(true);
  };
  const transfer = async () => {
    if (amount < minimum) {
      Toast.error(t('personal.invite.minimum', { amount: renderQuota(minimum) }));
      return;
    }
    try {
      await personalApi.affTransfer(amount);
      Toast.success(t('personal.invite.transferred'));
      setTransferOpen(false);
      onChanged();
    } catch {
      // Shown by the API client.
    }
  };

  return (
    <Card title={t('personal.invite.title')} style={{ marginBottom: 16 }}>
      <Space vertical align="start" style={{ width: '100%' }}>
        <Space wrap>
          <Input value={link} readOnly style={{ width: 420 }} data-testid="invite-link" />
          <Button onClick={() => void copyText(link, t('personal.invite.copied'))} disabled={!link}>
            {t('personal.invite.copy')}
          </Button>
        </Space>
        <Space wrap spacing={24}>
          <Typography.Text>{t('personal.invite.pending', { amount: renderQuota(user?.aff_quota ?? 0) })}</Typography.Text>
          <Typography.Text>{t('personal.invite.total', { amount: renderQuota(user?.aff_history_quota ?? 0) })}</Typography.Text>
          <Typography.Text>{t('personal.invite.count', { count: user?.aff_count ?? 0 })}</Typography.Text>
          <Button type="primary" onClick={openTransfer} disabled={!user?.aff_quota} data-testid="invite-transfer">
            {t('personal.invite.transfer')}
          </Button>
        </Space>
      </Space>
      <Modal
        title={t('personal.invite.transfer')}
        visible={transferOpen}
        onCancel={() => setTransferOpen(false)}
        onOk={() => void transfer()}
        okText={t('submit')}
        cancelText={t('cancel')}
      >
        <Typography.Paragraph>{t('personal.invite.available', { amount: renderQuota(user?.aff_quota ?? 0) })}</Typography.Paragraph>
        <InputNumber
          value={amount}
          min={0}
          max={user?.aff_quota ?? 0}
          precision={0}
          onNumberChange={(value) => setAmount(Number(value) || 0)}
          style={{ width: '100%' }}
        />
        <Typography.Text type="tertiary">{renderQuota(amount)}</Typography.Text>
      </Modal>
    </Card>
  );
}
