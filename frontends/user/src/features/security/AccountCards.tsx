import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  Button,
  Card,
  Empty,
  Modal,
  Space,
  Tag,
  Toast,
  Typography,
  api,
  createPasskey,
  passkeySupported,
  renderQuota,
  useStatus,
  type PasskeyCreationJson,
} from '@console/kit';

interface Passkey {
  id: number;
  credential_id: string;
  attachment: string;
  created_at: string | null;
  last_used_at: string | null;
}
interface Binding {
  provider_id: number;
  provider_name: string;
  provider_slug: string;
  provider_user_id: string;
}
interface Checkin {
  min_quota: number;
  max_quota: number;
  stats: { total_quota: number; total_checkins: number; checked_in_today: boolean };
}

const day = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '');

/** Registered passkeys, add and remove (when the administrator enables passkeys). */
export function PasskeyCard() {
  const { t } = useTranslation('user');
  const status = useStatus();
  const [keys, setKeys] = useState<Passkey[]>([]);
  const [busy, setBusy] = useState(false);
  const refresh = useCallback(
    () =>
      api.get<{ passkeys: Passkey[] }>('/api/user/passkey').then(
        (d) => setKeys(d.passkeys ?? []),
        () => undefined,
      ),
    [],
  );
  useEffect(() => void refresh(), [refresh]);

  const add = async () => {
    if (!passkeySupported()) return Toast.error(t('security.passkey.unsupported'));
    setBusy(true);
    try {
      const begin = await api.post<{ options: { publicKey: PasskeyCreationJson } }>('/api/user/passkey/register/begin');
      let credential: Record<string, unknown>;
      try {
        credential = await createPasskey(begin.options);
      } catch {
        return void Toast.warning(t('security.passkey.cancelled'));
      }
      await api.post('/api/user/passkey/register/finish', credential);
      Toast.success(t('security.passkey.added'));
      await refresh();
    } catch {
      // Shown by the API client.
    } finally {
      setBusy(false);
    }
  };
  const remove = (credentialId?: string) =>
    api.delete('/api/user/passkey', { query: { credential_id: credentialId } }).then(
      () => {
        Toast.success(t('security.passkey.removed'));
        return refresh();
      },
      () => undefined,
    );

  return (
    <Card title={t('security.passkey.title')} style={{ marginBottom: 16 }} data-testid="passkey-card">
      {keys.length === 0 && (
        <Typography.Paragraph type="tertiary">
          {status.passkey_login ? t('security.passkey.none') : t('security.passkey.off')}
        </Typography.Paragraph>
      )}
      {keys.map((key) => (
        <div key={key.id} style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', padding: '6px 0' }}>
          <Space>
            <Tag>{key.attachment || 'passkey'}</Tag>
            <Typography.Text type="tertiary" size="small">
              {t('security.passkey.created', { date: day(key.created_at) })} ·{' '}
              {key.last_used_at ? t('security.passkey.lastUsed', { date: day(key.last_used_at) }) : t('security.passkey.never')}
            </Typography.Text>
          </Space>
          <Button size="small" type="danger" theme="borderless" onClick={() => void remove(key.credential_id)}>
            {t('security.passkey.remove')}
          </Button>
        </div>
      ))}
      {status.passkey_login && (
        <Button theme="solid" loading={busy} onClick={() => void add()} style={{ marginTop: 8 }} data-testid="passkey-add">
          {t('security.passkey.add')}
        </Button>
      )}
    </Card>
  );
}

/** Accounts linked through admin-defined OAuth providers, with unlink. */
export function BindingsCard() {
  const { t } = useTranslation('user');
  const [bindings, setBindings] = useState<Binding[]>([]);
  const refresh = useCallback(() => api.get<Binding[]>('/api/user/oauth/bindings').then(setBindings, () => undefined), []);
  useEffect(() => void refresh(), [refresh]);

  const unbind = (binding: Binding) =>
    Modal.confirm({
      title: t('security.bindings.confirm', { name: binding.provider_name }),
      onOk: () =>
        api.delete(`/api/user/oauth/bindings/${binding.provider_id}`).then(
          () => {
            Toast.success(t('security.bindings.unbound'));
            return refresh();
          },
          () => undefined,
        ),
    });

  return (
    <Card title={t('security.bindings.title')} style={{ marginBottom: 16 }} data-testid="bindings-card">
      {bindings.length === 0 && <Empty description={t('security.bindings.none')} />}
      {bindings.map((binding) => (
        <div key={binding.provider_id} style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', padding: '6px 0' }}>
          <Space>
            <Typography.Text strong>{binding.provider_name || binding.provider_slug}</Typography.Text>
            <Typography.Text type="tertiary">{binding.provider_user_id}</Typography.Text>
          </Space>
          <Button size="small" type="danger" theme="borderless" onClick={() => unbind(binding)}>
            {t('security.bindings.unbind')}
          </Button>
        </div>
      ))}
    </Card>
  );
}

/** The daily check-in button with its reward (when the administrator enables check-in). */
export function CheckinCard() {
  const { t } = useTranslation('user');
  const status = useStatus();
  const [info, setInfo] = useState<Checkin>();
  const [busy, setBusy] = useState(false);
  const refresh = useCallback(() => api.get<Checkin>('/api/user/checkin', { quiet: true }).then(setInfo, () => undefined), []);
  useEffect(() => {
    if (status.checkin_enabled) void refresh();
  }, [refresh, status.checkin_enabled]);
  if (!status.checkin_enabled || !info) return null;

  const checkIn = async () => {
    setBusy(true);
    try {
      const answer = await api.post<{ quota_awarded: number }>('/api/user/checkin');
      Toast.success(t('security.checkin.reward', { amount: renderQuota(answer.quota_awarded) }));
      await refresh();
    } catch {
      // Shown by the API client.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title={t('security.checkin.title')} style={{ marginBottom: 16 }} data-testid="checkin-card">
      <Typography.Paragraph type="tertiary">
        {t('security.checkin.hint', { min: renderQuota(info.min_quota), max: renderQuota(info.max_quota) })}
      </Typography.Paragraph>
      <Typography.Paragraph>
        {t('security.checkin.total', { count: info.stats.total_checkins, amount: renderQuota(info.stats.total_quota) })}
      </Typography.Paragraph>
      <Button
        theme="solid"
        disabled={info.stats.checked_in_today}
        loading={busy}
        onClick={() => void checkIn()}
        data-testid="checkin-button"
      >
        {info.stats.checked_in_today ? t('security.checkin.done') : t('security.checkin.button')}
      </Button>
    </Card>
  );
}
