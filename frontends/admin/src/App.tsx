import { useTranslation } from 'react-i18next';
import { PendingPage, registerNamespace, type RemoteAppProps } from '@console/kit';
import { resources } from './i18n';
import { UsersPage } from './features/users/UsersPage';
import { ChannelsPage } from './features/channels/ChannelsPage';
import { RedemptionsPage } from './features/redemptions/RedemptionsPage';
import { SettingsPage } from './features/settings/SettingsPage';

// Registered when the shell first loads this remote, before any of its pages renders.
registerNamespace('admin', resources);

/** The admin remote's pages; the shell decides which URL shows which page. */
export default function App({ page }: RemoteAppProps) {
  const { t } = useTranslation('admin');
  if (page === 'users') return <UsersPage />;
  if (page === 'channels') return <ChannelsPage />;
  if (page === 'redemptions') return <RedemptionsPage />;
  if (page === 'settings') return <SettingsPage />;
  return <PendingPage title={t(`pages.${page}`, { defaultValue: page })} />;
}
