import { useEffect, useState, type ReactNode } from 'react';
import { SandboxedHtml, Spin, api } from '@console/kit';

type Content = { kind: 'loading' } | { kind: 'empty' } | { kind: 'url'; url: string } | { kind: 'html'; html: string };

async function toContent(raw: string): Promise<Content> {
  const text = raw.trim();
  if (!text) return { kind: 'empty' };
  if (/^https?:\/\//i.test(text)) return { kind: 'url', url: text };
  // Markdown (and HTML, which markdown passes through) is converted on demand: most visits never need it.
  const { marked } = await import('marked');
  return { kind: 'html', html: await marked.parse(text) };
}

interface AdminContentProps {
  /** GET endpoint whose data is the admin-written content (home page or about). */
  endpoint: string;
  title: string;
  fallback: ReactNode;
}

/**
 * Shows admin-written content: a URL in a frame, markdown or HTML in a sandboxed frame (threat X1),
 * or the page's own fallback when nothing is set.
 */
export function AdminContent({ endpoint, title, fallback }: AdminContentProps) {
  const [content, setContent] = useState<Content>({ kind: 'loading' });
  useEffect(() => {
    api
      .get<string>(endpoint, { quiet: true })
      .then((raw) => toContent(raw ?? ''))
      .then(setContent, () => setContent({ kind: 'empty' }));
  }, [endpoint]);

  if (content.kind === 'loading') return <Spin style={{ display: 'block', margin: 48 }} />;
  if (content.kind === 'empty') return fallback;
  if (content.kind === 'url') {
    return (
      <iframe
        title={title}
        src={content.url}
        sandbox="allow-scripts allow-forms allow-popups"
        style={{ border: 'none', width: '100%', height: 'calc(100vh - 120px)' }}
      />
    );
  }
  return <SandboxedHtml title={title} html={content.html} />;
}
