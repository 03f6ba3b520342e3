import { useTranslation } from 'react-i18next';
import { Empty, Typography } from '@console/kit';
import { SideSheet } from '@console/kit/data';
import type { DebugExchange } from './useChat';

/** Inline images (data: URLs, up to megabytes) shortened so the panel stays readable. */
function shortenDataUrls(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && value.startsWith('data:') && value.length > 120) return `${value.slice(0, 60)}… (${value.length} chars)`;
  return value;
}

/** A JSON answer pretty-printed; a stream shown as its SSE lines, as received. */
function prettyResponse(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function Block({ title, text, testId }: { title: string; text: string; testId: string }) {
  return (
    <>
      <Typography.Title heading={6} style={{ margin: '12px 0 6px' }}>
        {title}
      </Typography.Title>
      <pre
        data-testid={testId}
        style={{
          background: 'var(--semi-color-fill-0)',
          borderRadius: 8,
          padding: 12,
          fontSize: 12,
          whiteSpace: 'pre-wrap',
          wordBreak: 'break-all',
          maxHeight: '40vh',
          overflow: 'auto',
          margin: 0,
        }}
      >
        {text}
      </pre>
    </>
  );
}

/** The last request sent to /pg/chat/completions and the answer as it came back, to see what the relay saw. */
export function DebugPanel({
  exchange,
  visible,
  onClose,
  mobile,
}: {
  exchange: DebugExchange | null;
  visible: boolean;
  onClose(): void;
  mobile: boolean;
}) {
  const { t } = useTranslation('playground');
  return (
    <SideSheet title={t('debug.title')} visible={visible} onCancel={onClose} closeOnEsc width={mobile ? '100%' : 520}>
      {exchange ? (
        <>
          <Typography.Text type="tertiary" size="small">
            POST /pg/chat/completions · {new Date(exchange.startedAt).toLocaleTimeString()}
          </Typography.Text>
          <Block title={t('debug.request')} text={JSON.stringify(exchange.request, shortenDataUrls, 2)} testId="debug-request" />
          <Block
            title={t('debug.response')}
            text={exchange.response ? prettyResponse(exchange.response) : t('debug.waiting')}
            testId="debug-response"
          />
        </>
      ) : (
        <Empty description={t('debug.empty')} style={{ marginTop: 48 }} />
      )}
    </SideSheet>
  );
}
