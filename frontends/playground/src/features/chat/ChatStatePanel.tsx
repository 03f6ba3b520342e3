import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { IconExternalOpen } from '@douyinfe/semi-icons';
import { Empty, Spin } from '@console/kit';

/** The centred placeholder the chat pages show while they load, or when they cannot open a client. */
export function ChatStatePanel({ loading, title, children }: { loading?: boolean; title?: string; children?: ReactNode }) {
  return (
    <div
      data-testid="chat-state"
      style={{ display: 'flex', flexDirection: 'column', alignItems: 'center', justifyContent: 'center', minHeight: '60vh', gap: 16 }}
    >
      {loading ? <Spin size="large" tip={title} /> : <Empty title={title} description={children} />}
    </div>
  );
}

/** A desktop client (its own URL scheme) cannot be framed, and browsers only hand such a link to its app on a user's click. */
export function OpenAppPanel({ url, name }: { url: string; name: string }) {
  const { t } = useTranslation('playground');
  return (
    <ChatStatePanel title={t('chat.desktopClient', { name })}>
      <a
        href={url}
        data-testid="open-chat-client"
        className="semi-button semi-button-primary semi-button-solid"
        style={{ textDecoration: 'none', gap: 6 }}
      >
        <IconExternalOpen />
        {t('chat.openClient', { name })}
      </a>
    </ChatStatePanel>
  );
}
