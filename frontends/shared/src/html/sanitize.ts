// Admin-written HTML (footer) is a product feature, but a stored-XSS vector (one-api CVE-2025-3801).
// This keeps an allowlist of inert formatting tags and safe link/image attributes and drops the rest.
const ALLOWED_TAGS = new Set([
  'A',
  'B',
  'BR',
  'CODE',
  'DIV',
  'EM',
  'H1',
  'H2',
  'H3',
  'H4',
  'HR',
  'I',
  'IMG',
  'LI',
  'OL',
  'P',
  'PRE',
  'SMALL',
  'SPAN',
  'STRONG',
  'SUB',
  'SUP',
  'U',
  'UL',
  'BLOCKQUOTE',
  'TABLE',
  'THEAD',
  'TBODY',
  'TR',
  'TD',
  'TH',
]);
const ALLOWED_ATTRIBUTES = new Set(['href', 'src', 'alt', 'title', 'target', 'width', 'height', 'colspan', 'rowspan']);
// A path must stay on this site: browsers read `/\host` (and `//host`) as another host's address.
const SAFE_URL = /^(https?:|mailto:|\/(?![/\\])|#)/i;

/** The URL as a browser reads it: tabs and newlines dropped wherever they are, spaces trimmed. */
function urlAsRead(value: string): string {
  return value.replace(/[\t\n\r]/g, '').trim();
}

function cleanElement(element: Element): void {
  for (const attribute of [...element.attributes]) {
    const name = attribute.name.toLowerCase();
    const isUrl = name === 'href' || name === 'src';
    if (!ALLOWED_ATTRIBUTES.has(name) || (isUrl && !SAFE_URL.test(urlAsRead(attribute.value)))) {
      element.removeAttribute(attribute.name);
    }
  }
  if (element.tagName === 'A') element.setAttribute('rel', 'noopener noreferrer');
}

function cleanChildren(parent: Node): void {
  for (const child of [...parent.childNodes]) {
    if (child.nodeType === Node.TEXT_NODE) continue;
    if (child.nodeType !== Node.ELEMENT_NODE) {
      child.remove();
      continue;
    }
    const element = child as Element;
    if (!ALLOWED_TAGS.has(element.tagName)) {
      // Unknown wrappers keep their text (e.g. <font>), dangerous containers go entirely.
      const keepText = !['SCRIPT', 'STYLE', 'IFRAME', 'OBJECT', 'EMBED', 'TEMPLATE', 'SVG', 'MATH', 'META', 'LINK'].includes(
        element.tagName.toUpperCase(),
      );
      if (keepText) {
        cleanChildren(element);
        element.replaceWith(...element.childNodes);
      } else {
        element.remove();
      }
      continue;
    }
    cleanElement(element);
    cleanChildren(element);
  }
}

export function sanitizeHtml(html: string): string {
  // A <template> parses without running scripts or loading images.
  const template = document.createElement('template');
  template.innerHTML = html;
  cleanChildren(template.content);
  return template.innerHTML;
}
