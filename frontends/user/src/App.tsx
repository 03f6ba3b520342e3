import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { PendingPage, Spin, registerNamespace, type RemoteAppProps } from '@console/kit';
import { resources } from './i18n';
import { TokensPage } from './features/tokens/TokensPage';
import { DrawingLogPage } from './features/drawing/DrawingLogPage';
import { TaskLogPage } from './features/task/TaskLogPage';
import { LogsPage } from './features/logs/LogsPage';
import { WalletPage } from './features/wallet/WalletPage';
import { PersonalPage } from './features/personal/PersonalPage';

// The dashboard and its charts come in their own chunk, fetched on the first visit to /detail.
const DashboardPage = lazy(() => import('./features/dashboard/DashboardPage').then((module) => ({ default: module.DashboardPage })));

// Registered when the shell first loads this remote, before any of its pages renders.
registerNamespace('user', resources);

/** The user remote's pages; the shell decides which URL shows which page. */
export default function App({ page }: RemoteAppProps) {
  const { t } = useTranslation('user');
  if (page === 'tokens') return <TokensPage />;
  if (page === 'drawing') return <DrawingLogPage />;
  if (page === 'tasks') return <TaskLogPage />;
  if (page === 'logs') return <LogsPage />;
  if (page === 'wallet') return <WalletPage />;
  if (page === 'personal') return <PersonalPage />;
  if (page === 'dashboard') {
    return (
      <Suspense fallback={<Spin size="large" />}>
        <DashboardPage />
      </Suspense>
    );
  }
  return <PendingPage title={t(`pages.${page}`, { defaultValue: page })} />;
}
