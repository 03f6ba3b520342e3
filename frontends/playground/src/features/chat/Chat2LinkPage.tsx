import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { chat2linkTemplate, chatServerAddress, isWebLink, resolveChatLink } from './chat-links';
import { ChatStatePanel, OpenAppPanel } from './ChatStatePanel';
import { useFirstEnabledKey } from './useFirstEnabledKey';
import { useFreshStatus } from './useFreshStatus';

/** `/chat2link`: builds the chat-client link from the first enabled token and leaves for it. */
export function Chat2LinkPage() {
  const { t } = useTranslation('playground');
  const status = useFreshStatus();
  const template = status && chat2linkTemplate(status);
  const key = useFirstEnabledKey(template !== null);
  const target =
    key.state === 'ready' && template
      ? resolveChatLink(template, { key: key.key, address: chatServerAddress(status?.server_address) })
      : null;

  const web = target !== null && isWebLink(target);

  useEffect(() => {
    // replace(): the back button should return to where the user came from, not bounce here again.
    if (target && web) window.location.replace(target);
  }, [target, web]);

  if (!status) return <ChatStatePanel loading title={t('chat.loading')} />;
  if (!template) return <ChatStatePanel title={t('chat.notConfigured')} />;
  if (key.state === 'none') return <ChatStatePanel title={t('chat.noEnabledToken')} />;
  if (key.state === 'failed') return <ChatStatePanel title={t('chat.loadFailed')} />;
  if (target && !web) return <OpenAppPanel url={target} name={t('chat.client')} />;
  return <ChatStatePanel loading title={t('chat.loading')} />;
}
