import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Input, Modal, RadioGroup, Radio, Typography, copyText, isApiError } from '@console/kit';
import { channelsApi } from '../api';

type Method = 'password' | '2fa';

/**
 * new-api's "view key": the server answers 403 until this login session re-verified (`POST /api/verify`,
 * password or 2FA code, good for 5 minutes); the dialog asks for it, then fetches the key again.
 */
export function RevealKeyButton({ channelId }: { channelId: number }) {
  const { t } = useTranslation('admin');
  const [asking, setAsking] = useState(false);
  const [method, setMethod] = useState<Method>('password');
  const [secret, setSecret] = useState('');
  const [key, setKey] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const reveal = async () => {
    try {
      setKey((await channelsApi.revealKey(channelId)).key);
    } catch (error) {
      // Other failures were already shown by the API client.
      if (isApiError(error) && error.status === 403) setAsking(true);
    }
  };

  const verify = async () => {
    setBusy(true);
    try {
      await channelsApi.verify(method, secret.trim());
      setAsking(false);
      setSecret('');
      await reveal();
    } catch {
      // Reported by the API client.
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button size="small" onClick={() => void reveal()} data-testid="channel-reveal-key">
        {t('channels.revealKey.button')}
      </Button>
      <Modal
        title={t('channels.revealKey.verifyTitle')}
        visible={asking}
        onCancel={() => setAsking(false)}
        onOk={() => void verify()}
        okButtonProps={{ loading: busy, disabled: !secret.trim(), 'data-testid': 'verify-submit' } as object}
      >
        <Typography.Paragraph>{t('channels.revealKey.verifyHint')}</Typography.Paragraph>
        <RadioGroup value={method} onChange={(event) => setMethod(event.target.value as Method)} style={{ marginBottom: 12 }}>
          <Radio value="password">{t('channels.revealKey.password')}</Radio>
          <Radio value="2fa">{t('channels.revealKey.code')}</Radio>
        </RadioGroup>
        <Input
          mode={method === 'password' ? 'password' : undefined}
          value={secret}
          onChange={setSecret}
          onEnterPress={() => void verify()}
          data-testid="verify-secret"
        />
      </Modal>
      <Modal
        title={t('channels.revealKey.keyTitle')}
        visible={key !== null}
        onCancel={() => setKey(null)}
        footer={
          <Button theme="solid" onClick={() => void copyText(key ?? '')}>
            {t('channels.revealKey.copy')}
          </Button>
        }
      >
        <Typography.Paragraph copyable={false} style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }} data-testid="revealed-key">
          {key}
        </Typography.Paragraph>
      </Modal>
    </>
  );
}
