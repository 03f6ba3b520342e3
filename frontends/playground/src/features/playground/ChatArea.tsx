import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconClear, IconSend, IconStop } from '@douyinfe/semi-icons';
import { Button, Empty, Space } from '@console/kit';
import { TextArea } from '@console/kit/data';
import { MessageBubble } from './MessageBubble';
import type { useChat } from './useChat';

export function ChatArea({ chat }: { chat: ReturnType<typeof useChat> }) {
  const { t } = useTranslation('playground');
  const [draft, setDraft] = useState('');
  const bottom = useRef<HTMLDivElement>(null);
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: 'end' });
  }, [chat.messages]);

  const submit = () => {
    if (!draft.trim()) return;
    void chat.send(draft);
    setDraft('');
  };

  return (
    <div style={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }}>
      <div style={{ flex: 1, overflowY: 'auto', padding: 16 }} data-testid="chat-messages">
        {chat.messages.length === 0 ? <Empty description={t('empty')} style={{ marginTop: 64 }} /> : chat.messages.map((m) => <MessageBubble key={m.id} message={m} />)}
        <div ref={bottom} />
      </div>
      <div style={{ padding: 16, borderTop: '1px solid var(--semi-color-border)' }}>
        <TextArea
          value={draft}
          onChange={setDraft}
          placeholder={t('placeholder')}
          autosize={{ minRows: 2, maxRows: 6 }}
          onEnterPress={(event) => {
            if (!event.shiftKey) {
              event.preventDefault();
              submit();
            }
          }}
          data-testid="chat-input"
        />
        <Space style={{ marginTop: 8, justifyContent: 'flex-end', width: '100%' }}>
          <Button icon={<IconClear />} onClick={chat.clear} data-testid="clear-context">
            {t('clear')}
          </Button>
          {chat.streaming ? (
            <Button type="danger" icon={<IconStop />} onClick={chat.stop} data-testid="stop">
              {t('stop')}
            </Button>
          ) : (
            <Button theme="solid" icon={<IconSend />} onClick={submit} data-testid="send">
              {t('send')}
            </Button>
          )}
        </Space>
      </div>
    </div>
  );
}
