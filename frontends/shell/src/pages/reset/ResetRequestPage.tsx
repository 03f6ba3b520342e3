import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Input, Toast, api, useStatus } from '@console/kit';
import { AuthCard, Field } from '../../components/AuthCard';
import { useCountdown } from '../../components/useCountdown';
import { Turnstile } from '../../auth/Turnstile';

const RETRY_SECONDS = 30;

export function ResetRequestPage() {
  const { t } = useTranslation('shell');
  const status = useStatus();
  const [email, setEmail] = useState('');
  const [turnstileToken, setTurnstileToken] = useState('');
  const [retryLeft, startRetry] = useCountdown();
  const [sending, setSending] = useState(false);

  const submit = async () => {
    if (!email) return;
    if (status.turnstile_check && !turnstileToken) return Toast.info(t('turnstileWait'));
    setSending(true);
    try {
      await api.get('/api/reset_password', { query: { email, turnstile: turnstileToken } });
      Toast.success(t('reset.sent'));
      startRetry(RETRY_SECONDS);
    } catch {
      // Already reported by the API client.
    } finally {
      setSending(false);
    }
  };

  return (
    <AuthCard title={t('reset.title')}>
      <form onSubmit={(event) => (event.preventDefault(), void submit())}>
        <Field label={t('register.email')}>
          <Input type="email" value={email} onChange={setEmail} />
        </Field>
        {status.turnstile_check && status.turnstile_site_key && (
          <Turnstile siteKey={status.turnstile_site_key} onVerify={setTurnstileToken} />
        )}
        <Button htmlType="submit" theme="solid" block loading={sending} disabled={retryLeft > 0}>
          {retryLeft > 0 ? t('reset.retryIn', { seconds: retryLeft }) : t('reset.submit')}
        </Button>
      </form>
    </AuthCard>
  );
}
