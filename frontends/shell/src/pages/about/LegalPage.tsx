import { useTranslation } from 'react-i18next';
import { Empty, Typography } from '@console/kit';
import { AdminContent } from '../../components/AdminContent';

/** new-api's `/user-agreement` and `/privacy-policy`: the admin's text (`legal.*` options), markdown, HTML or a URL. */
export function LegalPage({ kind }: { kind: 'user-agreement' | 'privacy-policy' }) {
  const { t } = useTranslation('shell');
  const title = t(`legal.${kind === 'user-agreement' ? 'userAgreement' : 'privacyPolicy'}`);
  const fallback = (
    <Empty title={title} description={<Typography.Text type="tertiary">{t('legal.empty')}</Typography.Text>} style={{ padding: 48 }} />
  );
  return <AdminContent endpoint={`/api/${kind}`} title={title} fallback={fallback} />;
}
