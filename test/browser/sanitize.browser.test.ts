/// <reference lib="dom" />
// sanitizeHtml (frontends/shared/src/html/sanitize.ts, the admin's footer HTML: threat X1) unit-tested in Chromium:
// its parsing and serialising are the browser's, so mutation XSS can only be judged by a real HTML parser. The
// module is loaded on its own into a blank page (no gateway); every other request is answered here, never sent.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser } from './support/chromium.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[browser suite skipped] ${skipReason}`);

const ORIGIN = 'https://console.gw.test';
const SANITIZER = ts
  .transpileModule(readFileSync(new URL('../../frontends/shared/src/html/sanitize.ts', import.meta.url), 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  })
  .outputText.replace(/^export\s+/gm, '');
/** `xss(n)` records that payload n ran; a dialog counts too. */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>sanitize</title>
<script>window.ran = []; window.xss = (n) => window.ran.push(String(n));</script>
<script>${SANITIZER}</script></head><body><div id="out"></div></body></html>`;

/** What the file promises to keep; anything else in a result is a failure. */
const ALLOWED_TAGS =
  'A B BR CODE DIV EM H1 H2 H3 H4 HR I IMG LI OL P PRE SMALL SPAN STRONG SUB SUP U UL BLOCKQUOTE TABLE THEAD TBODY TR TD TH';
const ALLOWED_ATTRIBUTES = 'href src alt title target width height colspan rowspan';

/** Stored-XSS and mutation-XSS payloads (threat X1's list and the classic parser-differential ones). */
const HOSTILE = [
  '<script>xss(1)</script>',
  '<img src=x onerror=xss(2)>',
  '<img src="x" onerror="xss(3)" srcset="javascript:xss(3)">',
  '<svg onload=xss(4)>',
  '<svg><script>xss(5)</script></svg>',
  '<svg><animate onbegin=xss(6) attributeName=x dur=1s>',
  '<math><mtext><table><mglyph><style><img src=x onerror=xss(7)>',
  '<iframe srcdoc="<script>parent.xss(8)</script>"></iframe>',
  '<iframe src="javascript:parent.xss(9)"></iframe>',
  '<object data="javascript:xss(10)"></object>',
  '<embed src="javascript:xss(11)">',
  '<meta http-equiv="refresh" content="0;url=javascript:xss(12)">',
  '<link rel="stylesheet" href="https://evil.example/x.css">',
  '<style>@import "https://evil.example/x.css"; body{background:url(javascript:xss(13))}</style>',
  '<a href="javascript:xss(14)">click</a>',
  '<a href="JaVaScRiPt:xss(15)">click</a>',
  '<a href=" javascript:xss(16)">click</a>',
  '<a href="java\tscript:xss(17)">click</a>',
  '<a href="&#106;avascript:xss(18)">click</a>',
  '<a href="&#x6A;avascript&colon;xss(19)">click</a>',
  '<a href="\x01javascript:xss(20)">click</a>',
  '<a href="vbscript:msgbox(21)">click</a>',
  '<a href="data:text/html,<script>xss(22)</script>">click</a>',
  '<img src="data:image/svg+xml,<svg onload=xss(23)>">',
  '<a href="//evil.example/">protocol-relative</a>',
  '<a href="/\\evil.example/">backslash</a>',
  '<a href="/\t/evil.example/">tab</a>',
  '<a href="/\n/evil.example/">newline</a>',
  '<img src="/\\evil.example/pixel.gif">',
  '<details open ontoggle=xss(24)><summary>x</summary></details>',
  '<input autofocus onfocus=xss(25)>',
  '<video><source onerror=xss(26)></video>',
  '<body onload=xss(27)>',
  '<form action="javascript:xss(28)"><button formaction="javascript:xss(28)">go</button></form>',
  '<base href="javascript:xss(29)//">',
  '<noscript><p title="</noscript><img src=x onerror=xss(30)>"></noscript>',
  '<svg></p><style><a id="</style><img src=1 onerror=xss(31)>">',
  '<form><math><mtext></form><form><mglyph><style></math><img src onerror=xss(32)>',
  '<xmp><img src=x onerror=xss(33)></xmp>',
  '<noembed><img src=x onerror=xss(34)></noembed>',
  '<textarea><img src=x onerror=xss(35)></textarea>',
  '<title><img src=x onerror=xss(36)></title>',
  '<template><img src=x onerror=xss(37)></template>',
  '<!--><img src=x onerror=xss(38)>-->',
  '<![CDATA[><img src=x onerror=xss(39)>]]>',
  '<div style="background:url(javascript:xss(40))" onclick=xss(40) onmouseover=xss(40)>hover</div>',
  '<a href="https://ok.example/" target="_blank" rel="opener" onclick="xss(41)">ok</a>',
  '<marquee onstart=xss(42)>m</marquee>',
  '<plaintext><img src=x onerror=xss(43)>',
  '<a xlink:href="javascript:xss(44)">x</a>',
  '<table><td background="javascript:xss(45)"><style>*{}</style>cell</td></table>',
  '<select><template><img src=x onerror=xss(46)></template></select>',
  '<div><script>xss(47)</script><p>after</p></div>',
  '<p onmouseover="xss(48)" style="position:fixed;inset:0">overlay</p>',
  '<a href="/ok"><font><a href="javascript:xss(49)">nested</a></font></a>',
  '<style><img src=x onerror=xss(50)></style>',
  '<img src=x:y onerror=xss(51)>',
  '<a href="https:&#x2F;&#x2F;evil.example/">entity slashes (a normal https link)</a>',
  '<p title="&quot;><img src=x onerror=xss(52)>">quoted</p>',
];

describe.skipIf(skipReason !== null)('sanitizeHtml in Chromium (threat X1)', () => {
  let browser: ConsoleBrowser;
  let page: Page;
  const requests: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    browser = await launchConsoleBrowser(ORIGIN);
    page = browser.page;
    await browser.context.route('**/*', async (route) => {
      const url = route.request().url();
      if (url === `${ORIGIN}/`) return route.fulfill({ contentType: 'text/html', body: PAGE });
      requests.push(url);
      return route.fulfill({ status: 404, body: '' });
    });
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto('/');
  });
  afterAll(async () => browser?.close());

  const sanitize = (html: string) => page.evaluate((h) => (window as unknown as { sanitizeHtml(h: string): string }).sanitizeHtml(h), html);

  /**
   * Sanitises `html`, puts the result into the live page as React's dangerouslySetInnerHTML does, and lists what
   * the browser built there that breaks a promise: an element or attribute outside the allowlists, a link or
   * image whose resolved URL is not http(s)/mailto (or, written as a path, leaves the page's origin), a link
   * without rel="noopener noreferrer".
   */
  const render = (html: string) =>
    page.evaluate(
      ({ html, tags, attributes }) => {
        const out = (window as unknown as { sanitizeHtml(h: string): string }).sanitizeHtml(html);
        const host = document.createElement('div');
        document.getElementById('out')!.append(host);
        host.innerHTML = out;
        const violations: string[] = [];
        for (const element of host.querySelectorAll('*')) {
          if (element.namespaceURI !== 'http://www.w3.org/1999/xhtml' || !tags.includes(element.tagName)) {
            violations.push(`element <${element.tagName}>`);
          }
          for (const attribute of element.attributes) {
            if (!attributes.includes(attribute.name) && !(element.tagName === 'A' && attribute.name === 'rel')) {
              violations.push(`attribute ${attribute.name} on <${element.tagName}>`);
            }
            if (attribute.name === 'href' || attribute.name === 'src') {
              // The URL parser drops leading/trailing C0 controls and spaces, and tabs and newlines anywhere.
              const written = attribute.value.replace(/^[\0- ]+|[\0- ]+$/g, '').replace(/[\t\n\r]/g, '');
              const resolved = new URL(attribute.value, document.baseURI);
              if (!['http:', 'https:', 'mailto:'].includes(resolved.protocol)) violations.push(`${attribute.name}=${attribute.value}`);
              else if (!/^[a-z][a-z0-9+.-]*:/i.test(written) && resolved.origin !== location.origin) {
                violations.push(`${attribute.name}=${JSON.stringify(attribute.value)} leaves the page for ${resolved.origin}`);
              }
            }
          }
          if (element.tagName === 'A' && element.getAttribute('rel') !== 'noopener noreferrer') violations.push('<A> without rel');
        }
        return { out, violations };
      },
      { html, tags: ALLOWED_TAGS.split(' '), attributes: ALLOWED_ATTRIBUTES.split(' ') },
    );

  it('keeps the allowed formatting tags, their text and their allowed attributes as they are', async () => {
    const safe =
      '<h1 title="t">Title</h1><h2>2</h2><h3>3</h3><h4>4</h4><p>Some <b>bold</b>, <strong>strong</strong>, <i>i</i>, <em>em</em>, ' +
      '<u>u</u>, <small>s</small>, <sub>2</sub>, <sup>3</sup>, <code>c</code> <span>span</span></p><pre>pre\n  text</pre>' +
      '<blockquote>q</blockquote><ul><li>a</li></ul><ol><li>b</li></ol><hr><br><div>d</div>' +
      '<table><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td rowspan="1">d</td></tr></tbody></table>' +
      '<img src="https://cdn.example/logo.png" alt="logo" width="20" height="10">';
    expect(await sanitize(safe)).toBe(safe);
    expect(await sanitize('© 2026 <b>Gateway</b> &amp; friends &lt;3')).toBe('© 2026 <b>Gateway</b> &amp; friends &lt;3');
  });

  it('drops every attribute outside the list: handlers, style, class, id, name, data-*, srcset', async () => {
    expect(await sanitize('<p style="color:red" class="c" id="i" name="n" data-x="1" onclick="xss(1)" ONMOUSEOVER="xss(1)">t</p>')).toBe(
      '<p>t</p>',
    );
    expect(await sanitize('<img src="https://cdn.example/a.png" srcset="https://evil.example/b.png 2x" onerror="xss(1)" alt="a">')).toBe(
      '<img src="https://cdn.example/a.png" alt="a">',
    );
  });

  it('keeps http(s), mailto, same-site paths and fragments in href and src', async () => {
    for (const url of [
      'https://example.com/a?b=1#c',
      'http://example.com/',
      'mailto:admin@example.com',
      '/pricing',
      '/docs/a?b=c#d',
      '#top',
    ]) {
      expect(await sanitize(`<a href="${url}">x</a>`), url).toBe(`<a href="${url}" rel="noopener noreferrer">x</a>`);
    }
    expect(await sanitize('<img src="/logo.png" alt="l">')).toBe('<img src="/logo.png" alt="l">');
  });

  it('drops script, data and other schemes, protocol-relative links and paths that browsers turn into them', async () => {
    for (const url of [
      'javascript:xss(1)',
      'JAVASCRIPT:xss(1)',
      ' javascript:xss(1)',
      'java\tscript:xss(1)',
      '&#106;avascript:xss(1)',
      '\x01javascript:xss(1)',
      'vbscript:x',
      'data:text/html,x',
      'file:///etc/passwd',
      'blob:https://console.gw.test/x',
      '//evil.example/',
      ' //evil.example/',
      '/\\evil.example/',
      '\\\\evil.example/',
      '/\t/evil.example/',
      '/\n/evil.example/',
      '/\r/evil.example/',
      'relative/path',
    ]) {
      expect(await sanitize(`<a href="${url}">x</a>`), JSON.stringify(url)).toBe('<a rel="noopener noreferrer">x</a>');
      expect(await sanitize(`<img src="${url}" alt="i">`), JSON.stringify(url)).toBe('<img alt="i">');
    }
  });

  it('gives every link rel="noopener noreferrer", replacing the one written', async () => {
    expect(await sanitize('<a href="https://example.com/" target="_blank" rel="opener">x</a>')).toBe(
      '<a href="https://example.com/" target="_blank" rel="noopener noreferrer">x</a>',
    );
    expect(await sanitize('<a>no link</a>')).toBe('<a rel="noopener noreferrer">no link</a>');
  });

  it('unwraps unknown elements and keeps their text', async () => {
    expect(await sanitize('<font color="red">red <b>bold</b></font>')).toBe('red <b>bold</b>');
    expect(await sanitize('<center><section><article>x</article></section></center>')).toBe('x');
    expect(await sanitize('<form action="/x"><label>Name <input name="n"></label><button>Send</button></form>')).toBe('Name Send');
    expect(await sanitize('<custom-element onclick="xss(1)">y</custom-element>')).toBe('y');
    // Raw-text elements keep their text as text, never as markup.
    expect(await sanitize('<xmp><b>x</b></xmp>')).toBe('&lt;b&gt;x&lt;/b&gt;');
  });

  it('removes dangerous containers with everything inside them', async () => {
    // Content the parser keeps inside each one (an HTML <b> would break out of <svg> and <math> as a sibling).
    for (const container of [
      '<script>inside("<b>")</script>',
      '<style>b{color:red} /* <b>inside</b> */</style>',
      '<iframe>inside <b>bold</b></iframe>',
      '<object data="/x">inside <b>bold</b></object>',
      '<template>inside <b>bold</b></template>',
      '<svg><g><text>inside</text><a href="/x">link</a></g></svg>',
      '<math><mi>inside</mi><mtext>text</mtext></math>',
    ]) {
      expect(await sanitize(`before${container}after`), container).toBe('beforeafter');
    }
    for (const empty of [
      '<embed src="https://x.example/a">',
      '<meta http-equiv="refresh" content="0;url=/x">',
      '<link rel="stylesheet" href="/x.css">',
    ]) {
      expect(await sanitize(`before${empty}after`), empty).toBe('beforeafter');
    }
  });

  it('drops comments and CDATA', async () => {
    expect(await sanitize('a<!-- a note -->b<![CDATA[c]]>d')).toBe('abd');
  });

  it('runs no script and loads no image while it sanitises', async () => {
    requests.length = 0;
    await sanitize('<img src="https://images.example/pixel.png" alt="p"><img src=x onerror=xss(1)><script>xss(2)</script>');
    await page.evaluate(() => fetch('/after-sanitising').then((r) => r.status));
    expect(requests).toEqual([`${ORIGIN}/after-sanitising`]);
    expect(await page.evaluate(() => (window as unknown as { ran: string[] }).ran)).toEqual([]);
    // Shown on the page, the image is fetched: the check above would have seen it.
    expect((await render('<img src="https://images.example/pixel.png" alt="p">')).violations).toEqual([]);
    await page.waitForFunction(() => [...document.images].every((image) => image.complete));
    expect(requests).toContain('https://images.example/pixel.png');
  });

  it.each(HOSTILE)('leaves nothing active of %s once shown on a page', async (payload) => {
    const { out, violations } = await render(payload);
    expect(violations, out).toEqual([]);
    expect(out).not.toMatch(/<(script|iframe|svg|math|style|object|embed|meta|link|base|template)\b/i);
    // Stable: sanitising the result again changes nothing (no parser round trip turns it into something else).
    expect(await sanitize(out), out).toBe(out);
  });

  it('ran none of the payloads: no xss() call and no dialog', async () => {
    // Let queued events (image errors, toggles, focus) fire before reading the record.
    await page.waitForFunction(() => [...document.images].every((image) => image.complete));
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve))));
    expect(await page.evaluate(() => (window as unknown as { ran: string[] }).ran)).toEqual([]);
    expect(dialogs).toEqual([]);
  });
});
