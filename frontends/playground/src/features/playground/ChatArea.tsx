import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Empty } from '@console/kit';
import { Composer } from './Composer';
import { MessageItem } from './MessageItem';
import type { Chat } from './useChat';

export function ChatArea({ chat, onShowDebug }: { chat: Chat; onShowDebug(): void }) {
  const { t } = useTranslation('playground');
  const list = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    // Follow a growing answer only while the user has not scrolled up to read something else.
    if (pinned.current && list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [chat.messages]);

  return (
    <div style={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }}>
      <div
        ref={list}
        style={{ flex: 1, overflowY: 'auto', padding: '8px 16px' }}
        data-testid="chat-messages"
        onScroll={(event) => {
          const box = event.currentTarget;
          pinned.current = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
        }}
      >
        {chat.messages.length === 0 ? (
          <Empty description={t('empty')} style={{ marginTop: 64 }} />
        ) : (
          chat.messages.map((message) => (
            <MessageItem key={message.id} message={message} busy={chat.streaming} onRetry={chat.retry} onEdit={chat.editAndResend} />
          ))
        )}
      </div>
      <Composer chat={chat} onShowDebug={onShowDebug} />
    </div>
  );
}
