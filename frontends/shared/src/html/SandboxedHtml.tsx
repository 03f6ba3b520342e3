import type { CSSProperties } from 'react';

interface SandboxedHtmlProps {
  html: string;
  title: string;
  style?: CSSProperties;
}

const FRAME_STYLE = '<style>body{font-family:system-ui,sans-serif;margin:16px;line-height:1.6;color:#1c1f23}img{max-width:100%}</style>';

/**
 * Admin-authored pages (home, about) may hold any HTML. They render in an iframe without allow-scripts or
 * allow-same-origin: their markup shows, their scripts never run and they cannot touch the console's session.
 */
export function SandboxedHtml({ html, title, style }: SandboxedHtmlProps) {
  return (
    <iframe
      title={title}
      sandbox="allow-popups allow-popups-to-escape-sandbox"
      referrerPolicy="no-referrer"
      srcDoc={`<!doctype html><meta charset="utf-8"><base target="_blank">${FRAME_STYLE}${html}`}
      style={{ border: 'none', width: '100%', minHeight: 'calc(100vh - 140px)', ...style }}
    />
  );
}
