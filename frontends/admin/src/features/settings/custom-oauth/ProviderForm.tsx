import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Input, Space, Toast, Typography, api } from '@console/kit';
import { Select, SideSheet, Switch } from '@console/kit/data';

export interface Provider {
  id?: number;
  name: string;
  slug: string;
  icon: string;
  enabled: boolean;
  client_id: string;
  client_secret?: string;
  client_secret_set?: boolean;
  authorization_endpoint: string;
  token_endpoint: string;
  user_info_endpoint: string;
  scopes: string;
  user_id_field: string;
  username_field: string;
  display_name_field: string;
  email_field: string;
  well_known: string;
  auth_style: number;
  pkce_enabled: boolean;
}

export const EMPTY_PROVIDER: Provider = {
  name: '',
  slug: '',
  icon: '',
  enabled: true,
  client_id: '',
  client_secret: '',
  authorization_endpoint: '',
  token_endpoint: '',
  user_info_endpoint: '',
  scopes: 'openid profile email',
  user_id_field: 'sub',
  username_field: 'preferred_username',
  display_name_field: 'name',
  email_field: 'email',
  well_known: '',
  auth_style: 0,
  pkce_enabled: false,
};

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div style={{ marginBottom: 12 }}>
      <Typography.Text strong style={{ display: 'block', marginBottom: 4 }}>
        {label}
      </Typography.Text>
      {children}
    </div>
  );
}

/** Create or edit one provider in a side sheet; discovery fills the endpoints. */
export function ProviderForm({ initial, onClose, onSaved }: { initial: Provider; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation('admin');
  const [form, setForm] = useState<Provider>({ ...initial, client_secret: '' });
  const [busy, setBusy] = useState(false);
  const set =
    <K extends keyof Provider>(key: K) =>
    (value: Provider[K]) =>
      setForm((f) => ({ ...f, [key]: value }));
  const text = (key: keyof Provider, label: string, extra: { placeholder?: string; mode?: 'password' } = {}) => (
    <Row label={label}>
      <Input value={String(form[key] ?? '')} onChange={set(key) as (v: string) => void} data-testid={`provider-${key}`} {...extra} />
    </Row>
  );

  const discover = async () => {
    const found = await api
      .post<{ authorization_endpoint: string; token_endpoint: string; user_info_endpoint: string }>(
        '/api/custom-oauth-provider/discovery',
        { well_known_url: form.well_known },
      )
      .catch(() => null);
    if (!found) return;
    setForm((f) => ({
      ...f,
      authorization_endpoint: found.authorization_endpoint,
      token_endpoint: found.token_endpoint,
      user_info_endpoint: found.user_info_endpoint,
    }));
    Toast.success(t('customOAuth.discovered'));
  };

  const save = async () => {
    setBusy(true);
    try {
      const { id, client_secret_set: _set, ...body } = form;
      if (id) await api.put(`/api/custom-oauth-provider/${id}`, body);
      else await api.post('/api/custom-oauth-provider', body);
      Toast.success(t('customOAuth.saved'));
      onSaved();
    } catch {
      // Shown by the API client (validation messages come from the server).
    } finally {
      setBusy(false);
    }
  };

  return (
    <SideSheet
      title={form.id ? t('customOAuth.edit') : t('customOAuth.add')}
      visible
      onCancel={onClose}
      width={520}
      footer={
        <Space>
          <Button onClick={onClose}>{t('customOAuth.cancel')}</Button>
          <Button theme="solid" loading={busy} onClick={() => void save()} data-testid="provider-save">
            {t('customOAuth.save')}
          </Button>
        </Space>
      }
    >
      {text('name', t('customOAuth.field.name'))}
      {text('slug', t('customOAuth.field.slug'), { placeholder: 'my-sso' })}
      {text('icon', t('customOAuth.field.icon'))}
      <Row label={t('customOAuth.field.enabled')}>
        <Switch checked={form.enabled} onChange={set('enabled')} />
      </Row>
      {text('client_id', t('customOAuth.field.clientId'))}
      {text('client_secret', t('customOAuth.field.clientSecret'), {
        mode: 'password',
        placeholder: initial.client_secret_set ? t('customOAuth.secretKept') : '',
      })}
      <Row label={t('customOAuth.field.wellKnown')}>
        <Space style={{ width: '100%' }}>
          <Input
            value={form.well_known}
            onChange={set('well_known')}
            placeholder="https://idp.example.com/.well-known/openid-configuration"
          />
          <Button onClick={() => void discover()} disabled={!form.well_known}>
            {t('customOAuth.discover')}
          </Button>
        </Space>
      </Row>
      {text('authorization_endpoint', t('customOAuth.field.authorization'))}
      {text('token_endpoint', t('customOAuth.field.token'))}
      {text('user_info_endpoint', t('customOAuth.field.userInfo'))}
      {text('scopes', t('customOAuth.field.scopes'))}
      {text('user_id_field', t('customOAuth.field.userId'))}
      {text('username_field', t('customOAuth.field.username'))}
      {text('display_name_field', t('customOAuth.field.displayName'))}
      {text('email_field', t('customOAuth.field.email'))}
      <Row label={t('customOAuth.field.authStyle')}>
        <Select
          value={form.auth_style}
          onChange={(v) => set('auth_style')(Number(v))}
          style={{ width: '100%' }}
          optionList={[
            { value: 0, label: t('customOAuth.field.authAuto') },
            { value: 1, label: t('customOAuth.field.authParams') },
            { value: 2, label: t('customOAuth.field.authHeader') },
          ]}
        />
      </Row>
      <Row label={t('customOAuth.field.pkce')}>
        <Switch checked={form.pkce_enabled} onChange={set('pkce_enabled')} data-testid="custom-oauth-pkce" />
      </Row>
    </SideSheet>
  );
}
