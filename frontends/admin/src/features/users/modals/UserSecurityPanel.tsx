import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Divider, Space, Tag, Toast, Typography } from '@console/kit';
import { Popconfirm } from '@console/kit/data';
import { BUILT_IN_BINDINGS, usersApi, type AdminUser, type UserOAuthBinding } from '../api';

interface UserSecurityPanelProps {
  userId: number;
  /** After a hard delete: the drawer closes and the list reloads. */
  onDeleted(): void;
}

/** Admin-side account security of one user: reset 2FA and passkeys, remove bindings, delete for good. */
export function UserSecurityPanel({ userId, onDeleted }: UserSecurityPanelProps) {
  const { t } = useTranslation('admin');
  const [user, setUser] = useState<AdminUser | null>(null);
  const [custom, setCustom] = useState<UserOAuthBinding[]>([]);

  const reload = useCallback(() => {
    usersApi.get(userId).then(setUser, () => undefined);
    usersApi.oauthBindings(userId).then(setCustom, () => setCustom([]));
  }, [userId]);
  useEffect(reload, [reload]);

  /** Runs one admin action; the API client already reports failures. */
  const run = async (action: () => Promise<unknown>, after: () => void = reload) => {
    try {
      await action();
      Toast.success(t('security.done'));
      after();
    } catch {
      // Reported by the API client.
    }
  };

  const builtIn = user ? BUILT_IN_BINDINGS.filter(([, field]) => user[field]) : [];
  return (
    <div data-testid="user-security">
      <Divider margin={16} align="left">
        {t('security.title')}
      </Divider>
      <Space wrap>
        <Popconfirm title={t('security.reset2faConfirm')} onConfirm={() => void run(() => usersApi.reset2fa(userId))}>
          <span style={{ display: 'inline-block' }}>
            <Button data-testid="user-reset-2fa">{t('security.reset2fa')}</Button>
          </span>
        </Popconfirm>
        <Popconfirm title={t('security.resetPasskeyConfirm')} onConfirm={() => void run(() => usersApi.resetPasskey(userId))}>
          <span style={{ display: 'inline-block' }}>
            <Button data-testid="user-reset-passkey">{t('security.resetPasskey')}</Button>
          </span>
        </Popconfirm>
      </Space>

      <Typography.Title heading={6} style={{ margin: '16px 0 8px' }}>
        {t('security.bindings')}
      </Typography.Title>
      {builtIn.length + custom.length === 0 && <Typography.Text type="tertiary">{t('security.noBindings')}</Typography.Text>}
      <Space vertical align="start" spacing={8} style={{ width: '100%' }}>
        {user &&
          builtIn.map(([type, field]) => (
            <BindingRow
              key={type}
              label={t(`security.binding.${type}`)}
              value={String(user[field])}
              testId={`binding-${type}`}
              onRemove={() => void run(() => usersApi.removeBuiltInBinding(userId, type))}
            />
          ))}
        {custom.map((binding) => (
          <BindingRow
            key={binding.provider_id}
            label={binding.provider_name}
            value={binding.provider_user_id}
            testId={`binding-${binding.provider_slug}`}
            onRemove={() => void run(() => usersApi.removeOAuthBinding(userId, binding.provider_id))}
          />
        ))}
      </Space>

      <Divider margin={16} />
      <Popconfirm title={t('security.deleteConfirm')} onConfirm={() => void run(() => usersApi.remove(userId), onDeleted)}>
        <span style={{ display: 'inline-block' }}>
          <Button type="danger" theme="solid" data-testid="user-hard-delete">
            {t('security.delete')}
          </Button>
        </span>
      </Popconfirm>
    </div>
  );
}

function BindingRow({ label, value, testId, onRemove }: { label: string; value: string; testId: string; onRemove(): void }) {
  const { t } = useTranslation('admin');
  return (
    <Space data-testid={testId}>
      <Tag color="blue">{label}</Tag>
      <Typography.Text ellipsis={{ showTooltip: true }} style={{ maxWidth: 200 }}>
        {value}
      </Typography.Text>
      <Popconfirm title={t('security.unbindConfirm')} onConfirm={onRemove}>
        <span style={{ display: 'inline-block' }}>
          <Button size="small" type="danger">
            {t('security.unbind')}
          </Button>
        </span>
      </Popconfirm>
    </Space>
  );
}
