import type { ReactNode } from 'react';
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
