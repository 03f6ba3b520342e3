import { useEffect, useState } from 'react';
import { Navigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Banner, Button, Card, Input, Spin, Toast, Typography, apiEnvelope, isApiError } from '@console/kit';
import { Field } from '../../components/AuthCard';
import { UsageModePicker, modeFlags, type UsageMode } from './UsageModePicker';

interface SetupState {
  status: boolean;
  root_init: boolean;
  database_type: string;
}

const MIN_PASSWORD = 8;
const RELOAD_AFTER_MS = 1500;

export function SetupPage() {
  const { t } = useTranslation('shell');
  const [state, setState] = useState<SetupState | null>(null);
  const [form, setForm] = useState({ username: '', password: '', confirmPassword: '' });
  const [mode, setMode] = useState<UsageMode>('external');
  const [submitting, setSubmitting] = useState(false);
  const set = (key: keyof typeof form) => (value: string) => setForm((current) => ({ ...current, [key]: value }));

  useEffect(() => {
    apiEnvelope<SetupState>('GET', '/api/setup', { quiet: true }).then(
      (envelope) => setState(envelope.data),
      () => Toast.error(t('setup.statusFailed')),
    );
  }, [t]);

  if (!state) return <Spin size="large" style={{ display: 'block', margin: 96 }} />;
  if (state.status) return <Navigate to="/" replace />;
  const needsAdmin = !state.root_init;

  const submit = async () => {
    if (needsAdmin) {
      if (!form.username.trim()) return Toast.error(t('setup.usernameRequired'));
      if (form.password.length < MIN_PASSWORD) return Toast.error(t('setup.passwordShort'));
      if (form.password !== form.confirmPassword) return Toast.error(t('setup.passwordMismatch'));
    }
    setSubmitting(true);
    try {
      const envelope = await apiEnvelope('POST', '/api/setup', { body: { ...form, ...modeFlags(mode) }, quiet: true });
      Toast.success(envelope.message || t('setup.done'));
      setTimeout(() => window.location.reload(), RELOAD_AFTER_MS);
    } catch (error) {
      const networkFailure = !isApiError(error) || error.status === 0;
      Toast.error(networkFailure ? t('setup.networkFailed') : error.message || t('setup.failed'));
      setSubmitting(false);
    }
  };

  return (
    <div style={{ maxWidth: 640, margin: '32px auto', padding: '0 16px' }}>
      <Card title={<Typography.Title heading={3}>{t('setup.title')}</Typography.Title>}>
        {state.database_type === 'sqlite' && (
          <Banner
            type="warning"
            closeIcon={null}
            title={t('setup.sqliteTitle')}
            description={t('setup.sqliteWarning')}
            style={{ marginBottom: 16 }}
          />
        )}
        {needsAdmin ? (
          <>
            <Field label={t('setup.username')}>
              <Input name="username" value={form.username} onChange={set('username')} maxLength={12} />
            </Field>
            <Field label={t('setup.password')}>
              <Input name="password" mode="password" value={form.password} onChange={set('password')} />
            </Field>
            <Field label={t('setup.confirmPassword')}>
              <Input name="confirmPassword" mode="password" value={form.confirmPassword} onChange={set('confirmPassword')} />
            </Field>
          </>
        ) : (
          <Banner type="info" closeIcon={null} description={t('setup.adminExists')} style={{ marginBottom: 16 }} />
        )}
        <UsageModePicker value={mode} onChange={setMode} />
        <Button theme="solid" block loading={submitting} onClick={() => void submit()} data-testid="setup-submit" style={{ marginTop: 24 }}>
          {t('setup.submit')}
        </Button>
      </Card>
    </div>
  );
}
