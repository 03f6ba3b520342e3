import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Banner, Button, Input, api, copyText } from '@console/kit';
import { AuthCard, Field } from '../../components/AuthCard';

/** The link from the reset mail: confirms email + token, then shows (and copies) the new password. */
export function ResetConfirmPage() {
  const { t } = useTranslation('shell');
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const [newPassword, setNewPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);

  const submit = async () => {
    setSubmitting(true);
    try {
      const password = await api.post<string>('/api/user/reset', { email, token });
      setNewPassword(password);
      await copyText(password, t('reset.copied'));
    } catch {
      // Already reported by the API client.
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <AuthCard title={t('reset.confirmTitle')}>
      {!email || !token ? (
        <Banner type="danger" description={t('reset.invalidLink')} closeIcon={null} />
      ) : (
        <>
          <Field label={t('register.email')}>
            <Input value={email} disabled />
          </Field>
          {newPassword && (
            <Field label={t('reset.newPassword')}>
              <Input value={newPassword} readOnly onFocus={(event) => event.target.select()} />
            </Field>
          )}
          <Button theme="solid" block loading={submitting} disabled={Boolean(newPassword)} onClick={() => void submit()}>
            {t('reset.confirm')}
          </Button>
        </>
      )}
    </AuthCard>
  );
}
