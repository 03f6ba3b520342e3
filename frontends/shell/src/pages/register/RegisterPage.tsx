import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button, Input, Toast, api, useStatus } from '@console/kit';
import { AuthCard, Field } from '../../components/AuthCard';
import { useCountdown } from '../../components/useCountdown';
import { Turnstile } from '../../auth/Turnstile';
import { ThirdPartyLogins } from '../../auth/ThirdPartyLogins';

const MIN_PASSWORD = 8;
const RESEND_SECONDS = 30;

export function RegisterPage() {
  const { t } = useTranslation('shell');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const status = useStatus();
  const affCode = params.get('aff') ?? localStorage.getItem('aff') ?? '';
  const [form, setForm] = useState({ username: '', password: '', password2: '', email: '', verification_code: '' });
  const [turnstileToken, setTurnstileToken] = useState('');
  const [resendLeft, startResend] = useCountdown();
  const [submitting, setSubmitting] = useState(false);
  const set = (key: keyof typeof form) => (value: string) => setForm((current) => ({ ...current, [key]: value }));
  const botCheckPending = status.turnstile_check && !turnstileToken;

  const sendCode = async () => {
    if (!form.email) return;
    if (botCheckPending) return Toast.info(t('turnstileWait'));
    await api.get('/api/verification', { query: { email: form.email, turnstile: turnstileToken } }).then(
      () => {
        Toast.success(t('register.codeSent'));
        startResend(RESEND_SECONDS);
      },
      () => undefined,
    );
  };

  const submit = async () => {
    if (!form.username || !form.password) return Toast.error(t('register.required'));
    if (form.password.length < MIN_PASSWORD) return Toast.error(t('register.passwordShort'));
    if (form.password !== form.password2) return Toast.error(t('register.passwordMismatch'));
    if (botCheckPending) return Toast.info(t('turnstileWait'));
    setSubmitting(true);
    try {
      await api.post('/api/user/register', { ...form, aff_code: affCode }, { query: { turnstile: turnstileToken } });
      Toast.success(t('register.success'));
      navigate('/login');
    } catch {
      // Already reported by the API client.
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <AuthCard title={t('register.title')}>
      <form onSubmit={(event) => (event.preventDefault(), void submit())}>
        <Field label={t('login.username')}>
          <Input value={form.username} onChange={set('username')} maxLength={12} autoComplete="username" />
        </Field>
        <Field label={t('login.password')}>
          <Input
            mode="password"
            value={form.password}
            onChange={set('password')}
            placeholder={t('register.passwordPlaceholder')}
            autoComplete="new-password"
          />
        </Field>
        <Field label={t('register.confirm')}>
          <Input mode="password" value={form.password2} onChange={set('password2')} autoComplete="new-password" />
        </Field>
        {status.email_verification && (
          <>
            <Field label={t('register.email')}>
              <Input
                type="email"
                value={form.email}
                onChange={set('email')}
                suffix={
                  <Button theme="borderless" disabled={!form.email || resendLeft > 0} onClick={() => void sendCode()}>
                    {resendLeft > 0 ? t('register.resendIn', { seconds: resendLeft }) : t('register.sendCode')}
                  </Button>
                }
              />
            </Field>
            <Field label={t('register.code')}>
              <Input value={form.verification_code} onChange={set('verification_code')} />
            </Field>
          </>
        )}
        {status.turnstile_check && status.turnstile_site_key && (
          <Turnstile siteKey={status.turnstile_site_key} onVerify={setTurnstileToken} />
        )}
        <Button htmlType="submit" theme="solid" block loading={submitting}>
          {t('register.submit')}
        </Button>
      </form>
      <div style={{ marginTop: 16, fontSize: 14 }}>
        <Link to="/login">{t('register.toLogin')}</Link>
      </div>
      <ThirdPartyLogins affCode={affCode || undefined} />
    </AuthCard>
  );
}
