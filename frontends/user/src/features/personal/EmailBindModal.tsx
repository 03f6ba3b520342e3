import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Input, Modal, Space, Toast } from '@console/kit';
import { personalApi } from './api';
import { useCountdown } from './useCountdown';

const RESEND_SECONDS = 30;

/** Bind (or change) the email: send a code, type it back. */
export function EmailBindModal({ visible, onClose, onBound }: { visible: boolean; onClose(): void; onBound(): void }) {
  const { t } = useTranslation('user');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [sending, setSending] = useState(false);
  const countdown = useCountdown();

  const send = async () => {
    if (!email.trim()) return Toast.warning(t('personal.bind.emailRequired'));
    setSending(true);
    try {
      await personalApi.sendEmailCode(email.trim());
      Toast.success(t('personal.bind.codeSent'));
      countdown.start(RESEND_SECONDS);
    } catch {
      // Shown by the API client.
    } finally {
      setSending(false);
    }
  };
  const bind = async () => {
    if (!email.trim() || !code.trim()) return Toast.warning(t('personal.bind.emailAndCode'));
    try {
      await personalApi.bindEmail(email.trim(), code.trim());
      Toast.success(t('personal.bind.done'));
      onBound();
      onClose();
    } catch {
      // Shown by the API client.
    }
  };

  return (
    <Modal
      title={t('personal.bind.emailTitle')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void bind()}
      okText={t('personal.bind.bind')}
      cancelText={t('cancel')}
    >
      <Space vertical align="start" style={{ width: '100%' }}>
        <Space style={{ width: '100%' }}>
          <Input
            value={email}
            onChange={setEmail}
            type="email"
            placeholder={t('personal.bind.emailPlaceholder')}
            style={{ width: 280 }}
            data-testid="bind-email"
          />
          <Button onClick={() => void send()} loading={sending} disabled={countdown.left > 0} data-testid="bind-email-send">
            {countdown.left > 0 ? t('personal.bind.resendIn', { seconds: countdown.left }) : t('personal.bind.sendCode')}
          </Button>
        </Space>
        <Input
          value={code}
          onChange={setCode}
          placeholder={t('personal.bind.codePlaceholder')}
          style={{ width: 280 }}
          data-testid="bind-email-code"
        />
      </Space>
    </Modal>
  );
}
