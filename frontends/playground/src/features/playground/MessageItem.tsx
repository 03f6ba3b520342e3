import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { IconCopy, IconEdit, IconRefresh } from '@douyinfe/semi-icons';
import { Button, Space, Tooltip, copyText } from '@console/kit';
import { TextArea } from '@console/kit/data';
import { isPending, type ChatMessage } from './conversation';
import { MessageBubble } from './MessageBubble';

interface MessageItemProps {
  message: ChatMessage;
  busy: boolean;
  onRetry(id: string): void;
  onEdit(id: string, text: string): void;
}

function Action({ label, icon, onClick, testId }: { label: string; icon: ReactNode; onClick(): void; testId: string }) {
  return (
    <Tooltip content={label}>
      <Button size="small" theme="borderless" type="tertiary" icon={icon} aria-label={label} onClick={onClick} data-testid={testId} />
    </Tooltip>
  );
}

/** A message with its actions underneath (copy, retry a reply, edit and resend a question). */
export function MessageItem({ message, busy, onRetry, onEdit }: MessageItemProps) {
  const { t } = useTranslation('playground');
  const [draft, setDraft] = useState<string | null>(null);
  const mine = message.role === 'user';
  const settled = !isPending(message);

  if (draft !== null) {
    return (
      <div style={{ margin: '8px 0' }} data-testid="message-editor">
        <TextArea value={draft} onChange={setDraft} autosize={{ minRows: 2, maxRows: 10 }} data-testid="edit-input" />
        <Space style={{ marginTop: 6, justifyContent: 'flex-end', width: '100%' }}>
          <Button onClick={() => setDraft(null)}>{t('cancel')}</Button>
          <Button
            theme="solid"
            disabled={busy || !draft.trim()}
            data-testid="edit-send"
            onClick={() => {
              onEdit(message.id, draft);
              setDraft(null);
            }}
          >
            {t('resend')}
          </Button>
        </Space>
      </div>
    );
  }

  return (
    <div
      className="pg-message"
      style={{ display: 'flex', flexDirection: 'column', alignItems: mine ? 'flex-end' : 'flex-start', margin: '8px 0' }}
    >
      <div style={{ maxWidth: '85%', minWidth: 0 }}>
        <MessageBubble message={message} />
      </div>
      {settled && (
        <Space spacing={2} style={{ marginTop: 2 }}>
          {message.content && (
            <Action label={t('copy')} icon={<IconCopy />} onClick={() => void copyText(message.content)} testId="message-copy" />
          )}
          {!busy && !mine && (
            <Action label={t('retry')} icon={<IconRefresh />} onClick={() => onRetry(message.id)} testId="message-retry" />
          )}
          {!busy && mine && (
            <Action label={t('edit')} icon={<IconEdit />} onClick={() => setDraft(message.content)} testId="message-edit" />
          )}
        </Space>
      )}
    </div>
  );
}
