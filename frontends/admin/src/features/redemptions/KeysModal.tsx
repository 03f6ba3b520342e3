import { useTranslation } from 'react-i18next';
import { Button, Modal, Space, Typography, copyText } from '@console/kit';
import { downloadKeys } from './api';

/** The keys of newly created codes: shown once, copyable one by one or all, and downloadable as text. */
export function KeysModal({ keys, onClose }: { keys: string[] | null; onClose(): void }) {
  const { t } = useTranslation('admin');
  const list = keys ?? [];
  return (
    <Modal
      title={t('redemptions.keysTitle', { count: list.length })}
      visible={keys !== null}
      onCancel={onClose}
      footer={
        <Space>
          <Button onClick={() => downloadKeys(list, `redemption-codes-${Date.now()}.txt`)} data-testid="redemption-keys-download">
            {t('redemptions.download')}
          </Button>
          <Button onClick={() => void copyText(list.join('\n'), t('redemptions.copied'))} data-testid="redemption-keys-copy-all">
            {t('redemptions.copyAll')}
          </Button>
          <Button theme="solid" onClick={onClose}>
            {t('close')}
          </Button>
        </Space>
      }
    >
      <Typography.Paragraph type="warning">{t('redemptions.keysOnce')}</Typography.Paragraph>
      <div data-testid="redemption-keys" style={{ maxHeight: 360, overflowY: 'auto' }}>
        {list.map((key) => (
          <div key={key} style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 4 }}>
            <Typography.Text code style={{ wordBreak: 'break-all', flex: 1 }}>
              {key}
            </Typography.Text>
            <Button size="small" onClick={() => void copyText(key, t('redemptions.copied'))} data-testid="redemption-key-copy">
              {t('redemptions.action.copy')}
            </Button>
          </div>
        ))}
      </div>
    </Modal>
  );
}
