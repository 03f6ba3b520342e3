/**
 * Model output is untrusted (threat X2: new-api's playground ran HTML from answers). The renderer builds
 * React elements from the Markdown syntax tree and never parses HTML; these rules decide what the few
 * URL-carrying elements may point at.
 */

/** Absolute http(s) and mailto only: no javascript:/data:/vbscript:, and no relative links into the console's own API. */
export function safeUrl(url: string): string | null {
  const value = url.trim();
  if (/^mailto:/i.test(value)) return value;
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/**
 * A remark plugin: raw HTML in the answer (`<script>`, `<img onerror>`, `<iframe>`) becomes literal text, so
 * the user sees what the model wrote and the browser never parses it.
 */
export function remarkHtmlAsText() {
  const visit = (node: MdNode) => {
    if (node.type === 'html') node.type = 'text';
    node.children?.forEach(visit);
  };
  return (tree: MdNode) => visit(tree);
}
