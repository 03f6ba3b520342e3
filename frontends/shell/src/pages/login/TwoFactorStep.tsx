import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Input, Toast, Typography, api, type StoredUser } from '@console/kit';
import { Field } from '../../components/AuthCard';

/** The second step of a password login (`require_2fa`): a TOTP code or a backup code. */
export function TwoFactorStep({ onDone, onBack }: { onDone: (user: StoredUser) => void; onBack: () => void }) {
  const { t } = useTranslation('shell');
  const [code, setCode] = useState('');
  const [submitting, setSubmitting] = useState(false);

  const submit = async () => {
    const value = code.trim();
    if (!value) return Toast.error(t('login.twoFactorRequired'));
    setSubmitting(true);
    try {
      onDone(await api.post<StoredUser>('/api/user/login/2fa', { code: value }));
    } catch {
      // Shown by the API client (wrong code, locked, expired login).
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
      data-testid="two-factor-step"
    >
      <Typography.Title heading={5} style={{ marginBottom: 8 }}>
        {t('login.twoFactorTitle')}
      </Typography.Title>
      <Typography.Paragraph type="tertiary" style={{ marginBottom: 16 }}>
        {t('login.twoFactorHint')}
      </Typography.Paragraph>
      <Field label={t('login.twoFactorCode')}>
        <Input name="code" value={code} onChange={setCode} autoComplete="one-time-code" inputMode="text" maxLength={32} autoFocus />
      </Field>
      <Button htmlType="submit" theme="solid" block loading={submitting} data-testid="two-factor-submit">
        {t('login.twoFactorSubmit')}
      </Button>
      <Button theme="borderless" block style={{ marginTop: 8 }} onClick={onBack}>
        {t('login.twoFactorBack')}
      </Button>
    </form>
  );
}
