import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Toast, api, getPasskey, passkeySupported, type PasskeyRequestJson, type StoredUser } from '@console/kit';

/** "Log in with a passkey": a discoverable credential names the account, no username needed. */
export function PasskeyLogin({ onDone }: { onDone: (user: StoredUser) => void }) {
  const { t } = useTranslation('shell');
  const [busy, setBusy] = useState(false);

  const start = async () => {
    if (!passkeySupported()) return Toast.error(t('login.passkeyUnsupported'));
    setBusy(true);
    try {
      const begin = await api.post<{ options: { publicKey: PasskeyRequestJson } }>('/api/user/passkey/login/begin');
      let credential: Record<string, unknown>;
      try {
        credential = await getPasskey(begin.options);
      } catch {
        Toast.warning(t('login.passkeyCancelled'));
        return;
      }
      onDone(await api.post<StoredUser>('/api/user/passkey/login/finish', credential));
    } catch {
      // Shown by the API client.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Button block theme="outline" loading={busy} onClick={() => void start()} style={{ marginTop: 12 }} data-testid="passkey-login">
      {t('login.passkey')}
    </Button>
  );
}
