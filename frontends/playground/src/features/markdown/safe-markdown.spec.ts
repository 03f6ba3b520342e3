import { describe, expect, it } from 'vitest';
import { remarkHtmlAsText, safeUrl } from './safe-markdown';

describe('safeUrl', () => {
  it('keeps absolute web and mail links', () => {
    expect(safeUrl('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(safeUrl(' http://example.com ')).toBe('http://example.com/');
    expect(safeUrl('mailto:a@b.test')).toBe('mailto:a@b.test');
  });

  it('drops script schemes, whatever their spelling, and relative links', () => {
    for (const url of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:x',
      '/api/user/logout',
      '#x',
      '',
    ]) {
      expect(safeUrl(url), url).toBeNull();
    }
  });
});

describe('remarkHtmlAsText', () => {
  it('turns raw HTML nodes anywhere in the tree into text', () => {
    const tree = {
      type: 'root',
      children: [
        { type: 'html', value: '<script>alert(1)</script>' },
        { type: 'paragraph', children: [{ type: 'html', value: '<img src=x onerror=alert(1)>' }] },
      ],
    };
    remarkHtmlAsText()(tree);
    expect(JSON.stringify(tree)).not.toContain('"html"');
    expect(tree.children[1]!.children![0]).toEqual({ type: 'text', value: '<img src=x onerror=alert(1)>' });
  });
});
