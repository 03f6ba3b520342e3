import { useTranslation } from 'react-i18next';
import { Empty } from '../ui/semi';

/** A console route whose page has not been built yet: reachable, honest, and inside the layout. */
export function PendingPage({ title }: { title: string }) {
  const { t } = useTranslation('kit');
  return <Empty title={title} description={t('pending')} style={{ padding: 48 }} />;
}
