import { useTranslation } from 'react-i18next';
import { Empty, Typography } from '@console/kit';
import { AdminContent } from '../../components/AdminContent';

export function AboutPage() {
  const { t } = useTranslation('shell');
  const fallback = (
    <Empty
      title={t('about.title')}
      description={<Typography.Text type="tertiary">{t('about.empty')}</Typography.Text>}
      style={{ padding: 48 }}
    />
  );
  return <AdminContent endpoint="/api/about" title={t('about.title')} fallback={fallback} />;
}
