import { useLocation, useParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { chatServerAddress, isLinkTemplate, isWebLink, parseChatLinks, resolveChatLink } from './chat-links';
import { ChatStatePanel, OpenAppPanel } from './ChatStatePanel';
import { useFirstEnabledKey } from './useFirstEnabledKey';
import { useFreshStatus } from './useFreshStatus';

/** `/chat/:id` from the shell's route; the standalone harness mounts the page under `/chat/*`, hence the fallback. */
function useChatIndex(): number {
  const params = useParams();
  const { pathname } = useLocation();
  const raw = params.id ?? pathname.match(/\/chat\/([^/]+)/)?.[1] ?? '0';
  return /^\d+$/.test(raw) ? Number(raw) : -1;
}

/**
 * `/chat/:id?`: the admin's chat client number `id` (default the first), filled with the user's first
 * enabled key. Web clients are framed; desktop clients (own URL scheme) cannot be, so they get a button.
 */
export function ChatPage() {
  const { t } = useTranslation('playground');
  const status = useFreshStatus();
  const index = useChatIndex();
  const links = parseChatLinks(status?.chats);
  const link = links.find((entry) => entry.index === index);
  const usable = link !== undefined && isLinkTemplate(link.template);
  // A configuration problem is the admin's to fix: the user's tokens are not even looked at then.
  const key = useFirstEnabledKey(usable);

  if (!status) return <ChatStatePanel loading title={t('chat.loading')} />;
  if (links.length === 0) return <ChatStatePanel title={t('chat.notConfigured')} />;
  if (!link || !isLinkTemplate(link.template))
    return <ChatStatePanel title={t('chat.misconfigured')}>{t('chat.misconfiguredHint', { id: index })}</ChatStatePanel>;
  if (key.state === 'loading') return <ChatStatePanel loading title={t('chat.redirecting')} />;
  if (key.state === 'none') return <ChatStatePanel title={t('chat.noEnabledToken')} />;
  if (key.state === 'failed') return <ChatStatePanel title={t('chat.loadFailed')} />;

  const url = resolveChatLink(link.template, { key: key.key, address: chatServerAddress(status.server_address) });
  if (!isWebLink(url)) return <OpenAppPanel url={url} name={link.name} />;
  return (
    <iframe
      data-testid="chat-frame"
      src={url}
      title={link.name}
      // The client is someone else's page: it may run scripts on its own origin, but it must not navigate the console away.
      sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads allow-modals"
      allow="camera; microphone; clipboard-read; clipboard-write"
      referrerPolicy="no-referrer"
      style={{ width: '100%', height: 'calc(100vh - 64px)', border: 'none', display: 'block' }}
    />
  );
}
