import { useEffect, useRef } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Spin, Toast, apiEnvelope, storeUser, userStore, type StoredUser } from '@console/kit';
import type { OAuthProvider } from '../../auth/oauth';

/** The login widget's fields, signed by Telegram, as it appends them to its auth URL. */
const TELEGRAM_FIELDS = ['id', 'first_name', 'last_name', 'username', 'photo_url', 'auth_date', 'hash'];

/** The gateway's callback route: Telegram's login is `GET /api/oauth/telegram/login` (spec 000 §7). */
function callbackCall(provider: string): string {
  return provider === 'telegram' ? '/api/oauth/telegram/login' : `/api/oauth/${provider}`;
}

/** What the callback is sent: the code and state of an OAuth provider, or Telegram's signed fields and the language. */
function callbackQuery(provider: string, params: URLSearchParams, language: string): Record<string, string | null> {
  if (provider !== 'telegram') return { code: params.get('code'), state: params.get('state') };
  return { ...Object.fromEntries(TELEGRAM_FIELDS.map((key) => [key, params.get(key)])), lang: language };
}

/** The provider sends the browser back here; the gateway either binds the account or logs the user in. */
export function OAuthCallbackPage({ provider }: { provider: OAuthProvider }) {
  const { t, i18n } = useTranslation('shell');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    apiEnvelope<StoredUser>('GET', callbackCall(provider), { query: callbackQuery(provider, params, i18n.language) }).then(
      (envelope) => {
        if (envelope.message === 'bind') {
          Toast.success(t('oauth.bound'));
          navigate('/setting', { replace: true });
          return;
        }
        storeUser(envelope.data);
        Toast.success(t('oauth.loggedIn'));
        navigate('/', { replace: true });
      },
      // The failure message has been shown by the API client: back to the settings of a logged-in user
      // (a binding that failed), to the login page otherwise.
      () => navigate(userStore.get() ? '/setting' : '/login', { replace: true }),
    );
  }, [navigate, params, provider, t, i18n]);

  return (
    <div style={{ padding: 96, textAlign: 'center' }}>
      <Spin size="large" tip={t('oauth.processing')} />
    </div>
  );
}

/** `/oauth/:provider` for Discord and admin-defined providers (their slug is in the path). */
export function OAuthProviderCallbackPage() {
  const { provider = '' } = useParams();
  return <OAuthCallbackPage provider={provider} />;
}
