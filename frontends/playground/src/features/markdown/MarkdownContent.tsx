import { Component, lazy, Suspense, type ReactNode } from 'react';

// Parser, GFM and highlighter weigh more than the rest of the remote: fetched when the first answer shows.
const MarkdownRenderer = lazy(() => import('./MarkdownRenderer'));

function PlainText({ text }: { text: string }) {
  return <div style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{text}</div>;
}

/** If the renderer chunk cannot load (or throws on odd input), the answer still reads as plain text. */
class PlainOnError extends Component<{ text: string; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  render() {
    return this.state.failed ? <PlainText text={this.props.text} /> : this.props.children;
  }
}

export function MarkdownContent({ text }: { text: string }) {
  return (
    <PlainOnError text={text}>
      <Suspense fallback={<PlainText text={text} />}>
        <MarkdownRenderer text={text} />
      </Suspense>
    </PlainOnError>
  );
}
