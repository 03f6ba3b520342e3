import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Input, Modal, Space, Toast, Typography } from '@console/kit';
import { personalApi } from './api';

/** WeChat: scan the official account's QR code, send it a message, type back the code it answers (valid 3 minutes). */
export function WeChatBindModal({
  visible,
  qrcode,
  onClose,
  onBound,
}: {
  visible: boolean;
  qrcode: string;
  onClose(): void;
  onBound(): void;
}) {
  const { t } = useTranslation('user');
  const [code, setCode] = useState('');
  const bind = async () => {
    if (!code.trim()) return Toast.warning(t('personal.bind.codeRequired'));
    try {
      await personalApi.bindWeChat(code.trim());
      Toast.success(t('personal.bind.done'));
      onBound();
      onClose();
    } catch {
      // Shown by the API client.
    }
  };
  return (
    <Modal
      title={t('personal.bind.wechatTitle')}
      visible={visible}
      onCancel={onClose}
      onOk={() => void bind()}
      okText={t('personal.bind.bind')}
      cancelText={t('cancel')}
    >
      <Space vertical align="center" style={{ width: '100%' }}>
        {qrcode && <img src={qrcode} alt="WeChat QR" style={{ width: 200, height: 200 }} />}
        <Typography.Text type="tertiary">{t('personal.bind.wechatHint')}</Typography.Text>
        <Input value={code} onChange={setCode} placeholder={t('personal.bind.codePlaceholder')} style={{ width: 240 }} />
      </Space>
    </Modal>
  );
}
