import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { PendingPage, Spin, registerNamespace, type RemoteAppProps } from '@console/kit';
import { resources } from './i18n';

// Registered when the shell first loads this remote, before any of its pages renders.
registerNamespace('admin', resources);

// Each page is its own chunk: visiting /user does not download the channel form or the settings tabs.
const PAGES = {
  users: lazy(() => import('./features/users/UsersPage').then((module) => ({ default: module.UsersPage }))),
  channels: lazy(() => import('./features/channels/ChannelsPage').then((module) => ({ default: module.ChannelsPage }))),
  redemptions: lazy(() => import('./features/redemptions/RedemptionsPage').then((module) => ({ default: module.RedemptionsPage }))),
  settings: lazy(() => import('./features/settings/SettingsPage').then((module) => ({ default: module.SettingsPage }))),
};

/** The admin remote's pages; the shell decides which URL shows which page. */
export default function App({ page }: RemoteAppProps) {
  const { t } = useTranslation('admin');
  const Page = PAGES[page as keyof typeof PAGES];
  if (!Page) return <PendingPage title={t(`pages.${page}`, { defaultValue: page })} />;
  return (
    <Suspense fallback={<Spin style={{ display: 'block', margin: 48 }} />}>
      <Page />
    </Suspense>
  );
}
