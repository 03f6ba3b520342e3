import { useEffect, useRef } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Spin, Toast, apiEnvelope, storeUser, type StoredUser } from '@console/kit';
import type { OAuthProvider } from '../../auth/oauth';

/** The provider sends the browser back here; the gateway either binds the account or logs the user in. */
export function OAuthCallbackPage({ provider }: { provider: OAuthProvider }) {
  const { t } = useTranslation('shell');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const query = { code: params.get('code'), state: params.get('state') };
    apiEnvelope<StoredUser>('GET', `/api/oauth/${provider}`, { query }).then(
      (envelope) => {
        if (envelope.message === 'bind') {
          Toast.success(t('oauth.bound'));
          navigate('/setting', { replace: true });
          return;
        }
        storeUser(envelope.data);
        Toast.success(t('oauth.loggedIn'));
        navigate('/token', { replace: true });
      },
      // The failure message has been shown by the API client.
      () => navigate('/setting', { replace: true }),
    );
  }, [navigate, params, provider, t]);

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
