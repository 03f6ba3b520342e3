import { useState } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Banner, Button, Input, Modal, Toast, api, storeUser, useStatus, type StoredUser } from '@console/kit';
import { AuthCard, Field } from '../../components/AuthCard';
import { Turnstile } from '../../auth/Turnstile';
import { ThirdPartyLogins } from '../../auth/ThirdPartyLogins';
import { PasskeyLogin } from '../../auth/PasskeyLogin';
import { TwoFactorStep } from './TwoFactorStep';

/** Old one-api installs created root/123456; new-api still warns when someone logs in with it. */
const isDefaultRootLogin = (username: string, password: string) => username === 'root' && password === '123456';

export function LoginPage() {
  const { t } = useTranslation('shell');
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const status = useStatus();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [turnstileToken, setTurnstileToken] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [needsCode, setNeedsCode] = useState(false);

  const finish = (user: StoredUser) => {
    storeUser(user);
    Toast.success(t('login.success'));
    if (isDefaultRootLogin(username, password)) {
      Modal.warning({
        title: t('login.defaultPasswordTitle'),
        content: t('login.defaultPassword'),
        hasCancel: false,
        okText: t('kit:action.ok'),
      });
    }
    const from = (location.state as { from?: string } | null)?.from;
    navigate(from && from !== '/login' ? from : '/token', { replace: true });
  };

  const submit = async () => {
    if (!username || !password) return Toast.error(t('login.required'));
    if (status.turnstile_check && !turnstileToken) return Toast.info(t('turnstileWait'));
    setSubmitting(true);
    try {
      const answer = await api.post<StoredUser | { require_2fa: true }>(
        '/api/user/login',
        { username, password },
        { query: { turnstile: turnstileToken } },
      );
      // With 2FA on, new-api answers `require_2fa` and waits for the code at /api/user/login/2fa.
      if ('require_2fa' in answer && answer.require_2fa) setNeedsCode(true);
      else finish(answer as StoredUser);
    } catch {
      // The API client has already shown the failure.
    } finally {
      setSubmitting(false);
    }
  };

  if (needsCode) {
    return (
      <AuthCard title={t('login.title')}>
        <TwoFactorStep onDone={finish} onBack={() => setNeedsCode(false)} />
      </AuthCard>
    );
  }

  return (
    <AuthCard title={t('login.title')}>
      {params.get('expired') === 'true' && (
        <Banner type="warning" description={t('login.expired')} style={{ marginBottom: 16 }} closeIcon={null} />
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Field label={t('login.username')}>
          <Input
            name="username"
            value={username}
            onChange={setUsername}
            placeholder={t('login.usernamePlaceholder')}
            autoComplete="username"
          />
        </Field>
        <Field label={t('login.password')}>
          <Input name="password" mode="password" value={password} onChange={setPassword} autoComplete="current-password" />
        </Field>
        {status.turnstile_check && status.turnstile_site_key && (
          <Turnstile siteKey={status.turnstile_site_key} onVerify={setTurnstileToken} />
        )}
        <Button htmlType="submit" theme="solid" block loading={submitting} data-testid="login-submit">
          {t('login.submit')}
        </Button>
      </form>
      <div style={{ display: 'flex', justifyContent: 'space-between', marginTop: 16, fontSize: 14 }}>
        {status.self_use_mode_enabled ? <span /> : <Link to="/register">{t('login.toRegister')}</Link>}
        <Link to="/reset">{t('login.forgot')}</Link>
      </div>
      {status.passkey_login && <PasskeyLogin onDone={finish} />}
      <ThirdPartyLogins affCode={params.get('aff') ?? undefined} />
    </AuthCard>
  );
}
