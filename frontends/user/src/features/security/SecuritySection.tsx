import { useTranslation } from 'react-i18next';
import { Typography } from '@console/kit';
import { BindingsCard, CheckinCard, PasskeyCard } from './AccountCards';
import { TwoFactorCard } from './TwoFactorCard';

/**
 * The security part of personal settings: 2FA, passkeys, linked accounts and the daily check-in.
 * Self-contained (its own API calls and `security` translations), so the personal page only mounts it.
 */
export function SecuritySection() {
  const { t } = useTranslation('user');
  return (
    <section data-testid="security-section">
      <Typography.Title heading={4} style={{ margin: '8px 0 16px' }}>
        {t('security.title')}
      </Typography.Title>
      <CheckinCard />
      <TwoFactorCard />
      <PasskeyCard />
      <BindingsCard />
    </section>
  );
}
