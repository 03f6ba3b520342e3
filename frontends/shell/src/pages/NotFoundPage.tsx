import { useTranslation } from 'react-i18next';
import { Empty } from '@console/kit';

export function NotFoundPage() {
  const { t } = useTranslation('shell');
  return <Empty title="404" description={t('notFound')} style={{ padding: 64 }} data-testid="not-found" />;
}
