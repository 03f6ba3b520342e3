import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '@console/kit';
import { chat2linkTemplate, chatServerAddress, resolveChatLink } from './chat-links';
import { ChatStatePanel } from './ChatStatePanel';
import { useFirstEnabledKey } from './useFirstEnabledKey';

/** `/chat2link`: builds the chat-client link from the first enabled token and leaves for it. */
export function Chat2LinkPage() {
  const { t } = useTranslation('playground');
  const status = useStatus();
  const template = chat2linkTemplate(status);
  const key = useFirstEnabledKey(template !== null);
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
