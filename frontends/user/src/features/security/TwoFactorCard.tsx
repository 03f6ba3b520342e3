import { useCallback, useEffect, useState } from 'react';
import { QRCodeSVG } from 'qrcode.react';
import { useTranslation } from 'react-i18next';
import { Banner, Button, Card, Input, Modal, Space, Tag, Toast, Typography, api, copyText } from '@console/kit';

interface Status {
  enabled: boolean;
  locked: boolean;
  backup_codes_remaining?: number;
}
interface Setup {
  secret: string;
  qr_code_data: string;
  backup_codes: string[];
}

/** The backup codes, shown once, with a copy button. */
function BackupCodes({ codes }: { codes: string[] }) {
  const { t } = useTranslation('user');
  return (
    <div data-testid="backup-codes">
      <Typography.Text strong>{t('security.twoFactor.backupTitle')}</Typography.Text>
      <Typography.Paragraph type="tertiary" size="small">
        {t('security.twoFactor.backupHint')}
      </Typography.Paragraph>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(2, 1fr)', gap: 4, fontFamily: 'monospace', margin: '8px 0' }}>
        {codes.map((code) => (
          <span key={code}>{code}</span>
        ))}
      </div>
      <Button size="small" onClick={() => void copyText(codes.join('\n'), t('security.twoFactor.copied'))}>
        {t('security.twoFactor.copyCodes')}
      </Button>
    </div>
  );
}

/** 2FA: set up with a QR code, turn on with a code, new backup codes, turn off. */
export function TwoFactorCard() {
  const { t } = useTranslation('user');
  const [status, setStatus] = useState<Status>();
  const [setup, setSetup] = useState<Setup>();
  const [codes, setCodes] = useState<string[]>();
  const [action, setAction] = useState<'disable' | 'regenerate'>();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);

  const refresh = useCallback(() => api.get<Status>('/api/user/2fa/status').then(setStatus, () => undefined), []);
  useEffect(() => void refresh(), [refresh]);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch {
      // Shown by the API client.
    } finally {
      setBusy(false);
    }
  };

  const startSetup = () => run(async () => setSetup(await api.post<Setup>('/api/user/2fa/setup')));
  const enable = () =>
    run(async () => {
      if (!code.trim()) return void Toast.error(t('security.twoFactor.codeRequired'));
      await api.post('/api/user/2fa/enable', { code: code.trim() });
      Toast.success(t('security.twoFactor.enabled'));
      setCodes(setup?.backup_codes);
      setSetup(undefined);
      setCode('');
      await refresh();
    });
  const confirmAction = () =>
    run(async () => {
      if (!code.trim()) return void Toast.error(t('security.twoFactor.codeRequired'));
      if (action === 'disable') {
        await api.post('/api/user/2fa/disable', { code: code.trim() });
        Toast.success(t('security.twoFactor.disabled'));
      } else {
        const answer = await api.post<{ backup_codes: string[] }>('/api/user/2fa/backup_codes', { code: code.trim() });
        setCodes(answer.backup_codes);
      }
      setAction(undefined);
      setCode('');
      await refresh();
    });

  return (
    <Card title={t('security.twoFactor.title')} style={{ marginBottom: 16 }} data-testid="two-factor-card">
      {status && (
        <Space vertical align="start" style={{ width: '100%' }}>
          <Space>
            <Tag color={status.enabled ? 'green' : 'grey'}>{status.enabled ? 'ON' : 'OFF'}</Tag>
            <Typography.Text>{status.enabled ? t('security.twoFactor.on') : t('security.twoFactor.off')}</Typography.Text>
          </Space>
          {status.enabled && status.backup_codes_remaining !== undefined && (
            <Typography.Text type="tertiary">{t('security.twoFactor.remaining', { count: status.backup_codes_remaining })}</Typography.Text>
          )}
          {status.locked && <Banner type="warning" description={t('security.twoFactor.locked')} closeIcon={null} />}
          {!status.enabled && !setup && (
            <Button theme="solid" loading={busy} onClick={() => void startSetup()} data-testid="two-factor-setup">
              {t('security.twoFactor.setup')}
            </Button>
          )}
          {status.enabled && (
            <Space>
              <Button onClick={() => setAction('regenerate')}>{t('security.twoFactor.regenerate')}</Button>
              <Button type="danger" onClick={() => setAction('disable')}>
                {t('security.twoFactor.disable')}
              </Button>
            </Space>
          )}
        </Space>
      )}
      {setup && (
        <div style={{ marginTop: 16 }} data-testid="two-factor-qr">
          <Typography.Paragraph>{t('security.twoFactor.scan')}</Typography.Paragraph>
          <div style={{ background: '#fff', padding: 8, display: 'inline-block' }}>
            <QRCodeSVG value={setup.qr_code_data} size={168} />
          </div>
          <Typography.Paragraph
            copyable={{ content: setup.secret }}
            style={{ fontFamily: 'monospace', margin: '8px 0' }}
            data-testid="two-factor-secret"
          >
            {t('security.twoFactor.secret')}: {setup.secret}
          </Typography.Paragraph>
          <BackupCodes codes={setup.backup_codes} />
          <Space style={{ marginTop: 12 }}>
            <Input value={code} onChange={setCode} placeholder={t('security.twoFactor.code')} maxLength={6} data-testid="two-factor-code" />
            <Button theme="solid" loading={busy} onClick={() => void enable()} data-testid="two-factor-enable">
              {t('security.twoFactor.enable')}
            </Button>
            <Button onClick={() => setSetup(undefined)}>{t('security.twoFactor.cancel')}</Button>
          </Space>
        </div>
      )}
      <Modal
        title={action === 'disable' ? t('security.twoFactor.disable') : t('security.twoFactor.regenerate')}
        visible={action !== undefined}
        onOk={() => void confirmAction()}
        onCancel={() => {
          setAction(undefined);
          setCode('');
        }}
        okText={t('security.twoFactor.confirm')}
        cancelText={t('security.twoFactor.cancel')}
        confirmLoading={busy}
      >
        <Input
          value={code}
          onChange={setCode}
          placeholder={action === 'disable' ? t('security.twoFactor.codeOrBackup') : t('security.twoFactor.code')}
          data-testid="two-factor-action-code"
        />
      </Modal>
      <Modal
        title={t('security.twoFactor.backupTitle')}
        visible={codes !== undefined}
        onOk={() => setCodes(undefined)}
        hasCancel={false}
        okText={t('security.twoFactor.done')}
        closable={false}
      >
        {codes && <BackupCodes codes={codes} />}
      </Modal>
    </Card>
  );
}
