import { useRef, type ComponentProps, type ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { useTranslation } from 'react-i18next';
import { IconCopy } from '@douyinfe/semi-icons';
import { Button, copyText } from '@console/kit';
import { remarkHtmlAsText, safeUrl } from './safe-markdown';
import './markdown.css';

function CodeBlock({ children }: { children?: ReactNode }) {
  const { t } = useTranslation('playground');
  const code = useRef<HTMLPreElement>(null);
  return (
    <div className="pg-code">
      <Button
        className="pg-code-copy"
        size="small"
        theme="borderless"
        icon={<IconCopy />}
        aria-label={t('copyCode')}
        onClick={() => void copyText(code.current?.textContent ?? '')}
      />
      <pre ref={code}>{children}</pre>
    </div>
  );
}

function SafeLink({ href, children }: ComponentProps<'a'>) {
  const url = href ? safeUrl(href) : null;
  if (!url) return <span className="pg-unsafe-link">{children}</span>;
  return (
    <a href={url} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

/** Images from an answer are not fetched (a hostile answer could use one as a tracking beacon): they show as a link. */
function ImageAsLink({ src, alt }: ComponentProps<'img'>) {
  const url = typeof src === 'string' ? safeUrl(src) : null;
  const label = `🖼 ${alt || url || ''}`;
  return url ? <SafeLink href={url}>{label}</SafeLink> : <span>{label}</span>;
}

const COMPONENTS: Components = {
  a: ({ href, children }) => <SafeLink href={href}>{children}</SafeLink>,
  img: ({ src, alt }) => <ImageAsLink src={src} alt={alt} />,
  pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
};

/** Our own checks above decide every URL; react-markdown's transform would otherwise run first with looser rules. */
const keepUrl = (url: string) => url;

/** Markdown with GFM tables and highlighted code; see safe-markdown.ts for why it cannot run HTML. */
export default function MarkdownRenderer({ text }: { text: string }) {
  return (
    <div className="pg-markdown">
      <Markdown
        remarkPlugins={[remarkGfm, remarkHtmlAsText]}
        rehypePlugins={[rehypeHighlight]}
        components={COMPONENTS}
        urlTransform={keepUrl}
      >
        {text}
      </Markdown>
    </div>
  );
}
