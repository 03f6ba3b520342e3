import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Empty, Modal, Space, Tag, Toast, Typography, api, useStatus } from '@console/kit';
import { EMPTY_PROVIDER, ProviderForm, type Provider } from './ProviderForm';

/**
 * Root's list of custom OAuth 2 / OIDC providers (`/api/custom-oauth-provider`), self-contained so the
 * system settings page only mounts it.
 */
export function CustomOAuthSettings() {
  const { t } = useTranslation('admin');
  const status = useStatus();
  const [providers, setProviders] = useState<Provider[]>([]);
  const [editing, setEditing] = useState<Provider>();
  const refresh = useCallback(() => api.get<Provider[]>('/api/custom-oauth-provider').then(setProviders, () => undefined), []);
  useEffect(() => void refresh(), [refresh]);
  const base = (status.server_address || window.location.origin).replace(/\/+$/, '');

  const remove = (provider: Provider) =>
    Modal.confirm({
      title: t('customOAuth.deleteConfirm', { name: provider.name }),
      onOk: () =>
        api.delete(`/api/custom-oauth-provider/${provider.id}`).then(
          () => {
            Toast.success(t('customOAuth.deleted'));
            return refresh();
          },
          () => undefined,
        ),
    });

  return (
    <Card
      title={t('customOAuth.title')}
      headerExtraContent={
        <Button theme="solid" onClick={() => setEditing(EMPTY_PROVIDER)} data-testid="provider-add">
          {t('customOAuth.add')}
        </Button>
      }
      data-testid="custom-oauth-settings"
    >
      <Typography.Paragraph type="tertiary" style={{ marginBottom: 12 }}>
        {t('customOAuth.hint', { url: `${base}/oauth/<slug>` })}
      </Typography.Paragraph>
      {providers.length === 0 && <Empty description={t('customOAuth.empty')} />}
      {providers.map((p) => (
        <div
          key={p.id}
          style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', padding: '8px 0' }}
          data-testid={`provider-row-${p.slug}`}
        >
          <Space>
            <Typography.Text strong>{p.name}</Typography.Text>
            <Tag>{p.slug}</Tag>
            <Tag color={p.enabled ? 'green' : 'grey'}>{p.enabled ? t('customOAuth.enabled') : t('customOAuth.disabled')}</Tag>
          </Space>
          <Space>
            <Button size="small" onClick={() => setEditing(p)}>
              {t('customOAuth.edit')}
            </Button>
            <Button size="small" type="danger" onClick={() => remove(p)}>
              {t('customOAuth.delete')}
            </Button>
          </Space>
        </div>
      ))}
      {editing && (
        <ProviderForm
          initial={editing}
          onClose={() => setEditing(undefined)}
          onSaved={() => {
            setEditing(undefined);
            void refresh();
          }}
        />
      )}
    </Card>
  );
}
