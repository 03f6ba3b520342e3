import { type ComponentType, lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { PendingPage, Spin, registerNamespace, type RemoteAppProps } from '@console/kit';
import { resources } from './i18n';
import { TokensPage } from './features/tokens/TokensPage';

/** A page in its own chunk, fetched on its first visit (the tokens page, the usual first one, comes with the remote). */
function lazyPage<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}

const PAGES: Readonly<Record<string, ComponentType>> = {
  drawing: lazyPage(() => import('./features/drawing/DrawingLogPage'), 'DrawingLogPage'),
  tasks: lazyPage(() => import('./features/task/TaskLogPage'), 'TaskLogPage'),
  logs: lazyPage(() => import('./features/logs/LogsPage'), 'LogsPage'),
  wallet: lazyPage(() => import('./features/wallet/WalletPage'), 'WalletPage'),
  personal: lazyPage(() => import('./features/personal/PersonalPage'), 'PersonalPage'),
  // The dashboard and its charts.
  dashboard: lazyPage(() => import('./features/dashboard/DashboardPage'), 'DashboardPage'),
};

// Registered when the shell first loads this remote, before any of its pages renders.
registerNamespace('user', resources);

/** The user remote's pages; the shell decides which URL shows which page. */
export default function App({ page }: RemoteAppProps) {
  const { t } = useTranslation('user');
  if (page === 'tokens') return <TokensPage />;
  const Page = Object.hasOwn(PAGES, page) ? PAGES[page] : undefined;
  if (!Page) return <PendingPage title={t(`pages.${page}`, { defaultValue: page })} />;
  return (
    <Suspense fallback={<Spin size="large" />}>
      <Page />
    </Suspense>
  );
}
