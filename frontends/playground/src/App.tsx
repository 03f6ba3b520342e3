import { useTranslation } from 'react-i18next';
import { PendingPage, registerNamespace, type RemoteAppProps } from '@console/kit';
import { resources } from './i18n';
import { Chat2LinkPage } from './features/chat/Chat2LinkPage';
import { ChatPage } from './features/chat/ChatPage';
import { PlaygroundPage } from './features/playground/PlaygroundPage';

// Registered when the shell first loads this remote, before any of its pages renders.
registerNamespace('playground', resources);

/** The playground remote's pages; the shell decides which URL shows which page. */
export default function App({ page }: RemoteAppProps) {
  const { t } = useTranslation('playground');
  if (page === 'playground') return <PlaygroundPage />;
  if (page === 'chat') return <ChatPage />;
  if (page === 'chat2link') return <Chat2LinkPage />;
  return <PendingPage title={t(`pages.${page}`, { defaultValue: page })} />;
}
