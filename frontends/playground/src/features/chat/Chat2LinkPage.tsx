import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { chatServerAddress, isLinkTemplate, isWebLink, parseChatLinks, resolveChatLink, useStatus, type SiteStatus } from '@console/kit';
import { ChatStatePanel } from './ChatStatePanel';
import { useFirstEnabledKey } from './useFirstEnabledKey';

/**
 * Which client /chat2link opens: the legacy `chat_link` (a ChatGPT-Next-Web deployment) when set, else the
 * first web client of the Chats option, else its first client of any kind.
 */
export function chat2linkTemplate(status: Partial<SiteStatus>): string | null {
  if (status.chat_link) return `${status.chat_link.replace(/\/+$/, '')}/#/?settings={"key":"{key}","url":"{address}"}`;
  const links = parseChatLinks(status.chats).filter((link) => isLinkTemplate(link.template));
  return (links.find((link) => isWebLink(link.template)) ?? links[0])?.template ?? null;
}

/** `/chat2link`: builds the chat-client link from the first enabled token and leaves for it. */
export function Chat2LinkPage() {
  const { t } = useTranslation('playground');
  const status = useStatus();
  const key = useFirstEnabledKey();
  const template = chat2linkTemplate(status);
  const target =
    key.state === 'ready' && template
      ? resolveChatLink(template, { key: key.key, address: chatServerAddress(status.server_address) })
      : null;

  useEffect(() => {
    // replace(): the back button should return to where the user came from, not bounce here again.
    if (target) window.location.replace(target);
  }, [target]);

  if (!template) return <ChatStatePanel title={t('chat.notConfigured')} />;
  if (key.state === 'none') return <ChatStatePanel title={t('chat.noEnabledToken')} />;
  if (key.state === 'failed') return <ChatStatePanel title={t('chat.loadFailed')} />;
  return <ChatStatePanel loading title={t('chat.loading')} />;
}
