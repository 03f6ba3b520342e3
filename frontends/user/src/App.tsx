import { useTranslation } from 'react-i18next';
import { PendingPage, registerNamespace, type RemoteAppProps } from '@console/kit';
import { resources } from './i18n';
import { TokensPage } from './features/tokens/TokensPage';
import { SecuritySection } from './features/security/SecuritySection';
import { DrawingLogPage } from './features/drawing/DrawingLogPage';
import { TaskLogPage } from './features/task/TaskLogPage';

// Registered when the shell first loads this remote, before any of its pages renders.
registerNamespace('user', resources);

/** The user remote's pages; the shell decides which URL shows which page. */
export default function App({ page }: RemoteAppProps) {
  const { t } = useTranslation('user');
  if (page === 'tokens') return <TokensPage />;
  // Until the personal page lands: it mounts <SecuritySection /> in its own layout.
  if (page === 'personal') return <SecuritySection />;
  if (page === 'drawing') return <DrawingLogPage />;
  if (page === 'tasks') return <TaskLogPage />;
  return <PendingPage title={t(`pages.${page}`, { defaultValue: page })} />;
}
