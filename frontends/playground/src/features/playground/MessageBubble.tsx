import { useTranslation } from 'react-i18next';
import { Spin, Tag, Typography } from '@console/kit';
import { MarkdownContent } from '../markdown/MarkdownContent';
import type { ChatMessage } from './conversation';
import type { RelayFailure } from './relay-errors';

/** Where the user can fix the failure themselves. */
const FIX_LINKS: Partial<Record<RelayFailure['kind'], { href: string; label: string }>> = {
  expired: { href: '/login?expired=true', label: 'errors.loginAgain' },
  quota: { href: '/topup', label: 'errors.topUp' },
};

function FailureNotice({ failure }: { failure: RelayFailure }) {
  const { t } = useTranslation('playground');
  const fix = FIX_LINKS[failure.kind];
  return (
    <div data-testid="message-error" data-kind={failure.kind} style={{ marginTop: 8, color: 'var(--semi-color-danger)' }}>
      <Typography.Text strong style={{ color: 'inherit' }}>
        {t(`errors.${failure.kind}`)}
      </Typography.Text>
      {failure.detail && (
        <div style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', fontSize: 12, marginTop: 4 }}>{failure.detail}</div>
      )}
      {fix && (
        <a
          href={fix.href}
          data-testid="message-error-fix"
          style={{ display: 'inline-block', marginTop: 4, color: 'var(--semi-color-link)' }}
        >
          {t(fix.label)}
        </a>
      )}
    </div>
  );
}

/** The model's thinking, folded once the answer starts; plain text, like everything a model sends. */
function Reasoning({ text, thinking }: { text: string; thinking: boolean }) {
  const { t } = useTranslation('playground');
  return (
    <details open={thinking} data-testid="message-reasoning" style={{ marginBottom: 6, color: 'var(--semi-color-text-2)', fontSize: 13 }}>
      <summary style={{ cursor: 'pointer' }}>{t(thinking ? 'reasoningLive' : 'reasoning')}</summary>
      <div
        style={{
          whiteSpace: 'pre-wrap',
          wordBreak: 'break-word',
          borderLeft: '2px solid var(--semi-color-border)',
          paddingLeft: 8,
          marginTop: 4,
        }}
      >
        {text}
      </div>
    </details>
  );
}

function Images({ urls }: { urls: string[] }) {
  return (
    <div style={{ display: 'flex', flexWrap: 'wrap', gap: 6, marginTop: 6 }}>
      {urls.map((url) => (
        // The user's own attachment (http(s) or data: URL they chose), never a model's.
        <img
          key={url}
          src={url}
          alt=""
          referrerPolicy="no-referrer"
          style={{ width: 96, height: 96, borderRadius: 6, objectFit: 'cover', background: 'var(--semi-color-fill-1)' }}
        />
      ))}
    </div>
  );
}

/**
 * One turn. The user's words show as typed; the model's answer as Markdown that cannot run HTML (threat X2).
 * `data-status` exposes the message state (loading, incomplete, complete, error).
 */
export function MessageBubble({ message }: { message: ChatMessage }) {
  const { t } = useTranslation('playground');
  const mine = message.role === 'user';
  const background =
    message.status === 'error'
      ? 'var(--semi-color-danger-light-default)'
      : mine
        ? 'var(--semi-color-primary-light-default)'
        : 'var(--semi-color-fill-0)';
  return (
    <div
      data-testid={`message-${message.role}`}
      data-status={message.status}
      style={{ maxWidth: '100%', padding: '10px 14px', borderRadius: 12, background, minWidth: 0 }}
    >
      {message.reasoning && <Reasoning text={message.reasoning} thinking={message.status === 'incomplete' && !message.content} />}
      {message.status === 'loading' ? (
        <Spin size="small" tip={t('thinking')} />
      ) : mine ? (
        <div style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{message.content}</div>
      ) : (
        message.content && <MarkdownContent text={message.content} />
      )}
      {message.images && <Images urls={message.images} />}
      {message.error && <FailureNotice failure={message.error} />}
      {message.stopped && (
        <Tag size="small" color="grey" style={{ marginTop: 6 }} data-testid="message-stopped">
          {t('stopped')}
        </Tag>
      )}
    </div>
  );
}
