import { useTranslation } from 'react-i18next';
import { Spin, Typography } from '@console/kit';
import type { ChatMessage } from './useChat';

/**
 * Model output is untrusted (threat X2): it is rendered as text, never as HTML, so markup in a reply
 * shows as characters and cannot run.
 */
export function MessageBubble({ message }: { message: ChatMessage }) {
  const { t } = useTranslation('playground');
  const mine = message.role === 'user';
  const background = message.status === 'error' ? 'var(--semi-color-danger-light-default)' : mine ? 'var(--semi-color-primary-light-default)' : 'var(--semi-color-fill-0)';
  return (
    <div style={{ display: 'flex', justifyContent: mine ? 'flex-end' : 'flex-start', margin: '8px 0' }}>
      <div data-testid={`message-${message.role}`} data-status={message.status} style={{ maxWidth: '80%', padding: '10px 14px', borderRadius: 12, background }}>
        {message.status === 'loading' ? (
          <Spin size="small" tip={t('thinking')} />
        ) : (
          <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', margin: 0 }}>{message.content}</Typography.Paragraph>
        )}
      </div>
    </div>
  );
}
