/// <reference lib="dom" />
// The playground remote in Chromium, against the built gateway and a fake OpenAI upstream: streamed answers
// and their states, stop, retry, edit, the debug panel, relay errors, hostile Markdown, the conversation kept
// across reloads, images and the phone layout. The chat pages have their own suite (chat-pages.browser.test.ts).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeUpstream } from '../fake-upstream/index.js';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser, screenshotIfFailed } from './support/chromium.js';
import { consoleCall } from './support/console-api.js';
import { login, setupRoot, switchUser } from './support/console-session.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[browser suite skipped] ${skipReason}`);

const ROOT = { username: 'root', password: 'browser-pass-123' };
const ALICE = { username: 'alice', password: 'alice-pass-123' };
const MODEL = 'gpt-4o-mini';

describe.skipIf(skipReason !== null)('playground remote in Chromium', () => {
  let gateway: GatewayProcess;
  let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
  let browser: ConsoleBrowser;
  let page: Page;

  const lastReply = () => page.getByTestId('message-assistant').last();
  // textContent, not innerText: the same text here (no hidden parts), and no layout pass per read.
  const replyText = async () => ((await lastReply().textContent()) ?? '').replace('已停止', '').trim();
  const replyStatus = () => lastReply().getAttribute('data-status');
  const waitForSettledReply = () =>
    page.waitForFunction(() => {
      const bubbles = document.querySelectorAll('[data-testid="message-assistant"]');
      return ['complete', 'error'].includes(bubbles[bubbles.length - 1]?.getAttribute('data-status') ?? '');
    });
  const ask = async (text: string) => {
    await page.getByTestId('chat-input').fill(text);
    await page.getByTestId('send').click();
  };
  // Semi puts the test id on the InputNumber's own <input> (or on its wrapper in other versions).
  const maxTokensInput = () => page.locator('input[data-testid="max-tokens"], [data-testid="max-tokens"] input');
  const lastChatRequest = () => upstream.requests.filter((request) => request.path.startsWith('/v1/chat/completions')).at(-1);

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await startGatewayProcess();
    browser = await launchConsoleBrowser(gateway.url);
    page = browser.page;
    page.setDefaultTimeout(15_000);

    await setupRoot(gateway.url, ROOT);
    await login(page, ROOT);
    const channel = await consoleCall(page, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'fake upstream', key: 'sk-upstream-test', base_url: upstream.url, models: MODEL, group: 'default' },
    });
    expect(channel.success, channel.message).toBe(true);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await upstream?.close();
  });

  afterEach(async (context) => {
    if (!(await screenshotIfFailed(context, browser, 'playground'))) return;
    // The tests share one page: a failure that left a side sheet or a stream open would fail every test after
    // it for that reason alone. A fresh page (the saved conversation stays) keeps the report to the real failure.
    await page.goto('/playground');
  });

  it('streams an answer word by word (loading → incomplete → complete) and shows the exchange in the debug panel', async () => {
    const REPLY = 'Streaming reaches the playground one word at a time';
    upstream.script({ path: '/v1/chat/completions', reply: REPLY, chunkDelayMs: 150, times: 1 });
    await page.goto('/playground');
    // Every state and text the reply shows is recorded as it happens, to prove the answer grows in place.
    await page.evaluate(() => {
      const seen: { status: string | null; text: string }[] = [];
      (window as unknown as { __replySeen: typeof seen }).__replySeen = seen;
      new MutationObserver(() => {
        const bubbles = document.querySelectorAll('[data-testid="message-assistant"]');
        const last = bubbles[bubbles.length - 1];
        if (!last) return;
        const entry = { status: last.getAttribute('data-status'), text: (last.textContent ?? '').trim() };
        const previous = seen[seen.length - 1];
        if (!previous || previous.status !== entry.status || previous.text !== entry.text) seen.push(entry);
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await ask('Say hello');
    await waitForSettledReply();
    expect(await replyStatus()).toBe('complete');
    expect(await replyText()).toBe(REPLY);

    const seen = await page.evaluate(() => (window as unknown as { __replySeen: { status: string; text: string }[] }).__replySeen);
    const statuses = [...new Set(seen.map((entry) => entry.status))];
    expect(statuses).toEqual(['loading', 'incomplete', 'complete']);
    const partial = seen.filter((entry) => entry.status === 'incomplete').map((entry) => entry.text);
    expect(new Set(partial).size).toBeGreaterThanOrEqual(5);
    for (const text of partial) expect(REPLY.startsWith(text)).toBe(true);

    expect(lastChatRequest()?.body).toMatchObject({
      model: MODEL,
      stream: true,
      temperature: 0,
      messages: [{ role: 'system' }, { role: 'user', content: 'Say hello' }],
    });
    expect(lastChatRequest()?.body).not.toHaveProperty('max_tokens');

    // Copy puts the answer's Markdown source on the clipboard.
    await lastReply().locator('xpath=../..').getByTestId('message-copy').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(REPLY);

    await page.getByTestId('toggle-debug').click();
    expect(JSON.parse((await page.getByTestId('debug-request').textContent()) ?? '')).toMatchObject({
      model: MODEL,
      group: '',
      stream: true,
    });
    const response = page.getByTestId('debug-response');
    await expect.poll(() => response.textContent()).toContain('data: [DONE]');
    expect(await response.textContent()).toContain('chat.completion.chunk');
    await browser.screenshot('pg-01-debug-panel');
    await page.locator('.semi-sidesheet-close').click();
    // The mask is what would stop the next click; it goes once the closing animation has ended.
    await page.locator('.semi-sidesheet-mask').waitFor({ state: 'hidden' });
  });

  it('stops mid-stream, keeps what arrived, and the stopped answer never changes afterwards', async () => {
    upstream.script({
      path: '/v1/chat/completions',
      reply: 'one two three four five six seven eight nine ten',
      chunkDelayMs: 300,
      times: 1,
    });
    await ask('Count to ten');
    await page.waitForFunction(() => {
      const bubbles = document.querySelectorAll('[data-testid="message-assistant"]');
      return (bubbles[bubbles.length - 1]?.textContent ?? '').includes('three');
    });
    await page.getByTestId('stop').click();
    await page.getByTestId('send').waitFor();
    const kept = await replyText();
    expect(kept.startsWith('one two three')).toBe(true);
    expect(await replyStatus()).toBe('complete');
    await lastReply().getByTestId('message-stopped').waitFor();
    // The relay sees the stop too: the upstream request is cut, so nothing more can arrive.
    await expect.poll(() => lastChatRequest()?.aborted, { timeout: 10_000 }).toBe(true);
    expect(await replyText()).toBe(kept);
    expect(kept).not.toContain('ten');
  });

  it('regenerates an answer and resends an edited question in place of the old turns', async () => {
    upstream.script({ path: '/v1/chat/completions', reply: 'Regenerated answer', times: 1 });
    const before = await page.getByTestId('message-assistant').count();
    await lastReply().locator('xpath=../..').getByTestId('message-retry').click();
    await waitForSettledReply();
    expect(await replyText()).toBe('Regenerated answer');
    expect(await page.getByTestId('message-assistant').count()).toBe(before);
    expect(lastChatRequest()?.body.messages.at(-1)).toEqual({ role: 'user', content: 'Count to ten' });

    upstream.script({ path: '/v1/chat/completions', reply: 'Edited answer', times: 1 });
    await page.getByTestId('message-user').last().locator('xpath=../..').getByTestId('message-edit').click();
    await page.getByTestId('edit-input').fill('Count to three');
    await page.getByTestId('edit-send').click();
    await waitForSettledReply();
    expect(await replyText()).toBe('Edited answer');
    expect(await page.getByTestId('message-user').last().textContent()).toBe('Count to three');
    expect(await page.getByText('Count to ten', { exact: true }).count()).toBe(0);
    expect(lastChatRequest()?.body.messages.at(-1)).toEqual({ role: 'user', content: 'Count to three' });
  });

  it('closes an answer cut off by a reload: the words saved so far stay, marked as stopped', async () => {
    upstream.script({
      path: '/v1/chat/completions',
      reply: 'alpha beta gamma delta epsilon zeta eta theta iota kappa',
      chunkDelayMs: 300,
      times: 1,
    });
    await ask('Greek letters');
    const saved = () => page.evaluate(() => localStorage.getItem('playground-messages') ?? '');
    // The conversation is saved while the answer streams in, not only once it ends.
    await expect.poll(saved, { timeout: 10_000 }).toContain('alpha beta gamma');
    await page.reload();
    await page.getByTestId('message-assistant').last().waitFor();
    expect(await replyStatus()).toBe('complete');
    await lastReply().getByTestId('message-stopped').waitFor();
    expect(await replyText()).toMatch(/^alpha beta gamma/);
    expect(await replyText()).not.toContain('kappa');
  });

  it('keeps the conversation and the settings across a reload', async () => {
    const answers = page.getByTestId('message-assistant');
    await expect.poll(async () => (await answers.locator('.pg-markdown').count()) === (await answers.count())).toBe(true);
    const texts = await answers.allInnerTexts();
    await maxTokensInput().fill('64');
    // The pickers offer the user's usable groups and the models enabled for them.
    await page.getByTestId('model-select').click();
    await page.locator('.semi-select-option', { hasText: MODEL }).first().waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('group-select').click();
    await page.locator('.semi-select-option', { hasText: 'default' }).first().click();
    await expect.poll(() => page.getByTestId('group-select').textContent()).toContain('default');
    await page.reload();
    // The markdown renderer loads lazily: until it has, an answer shows as plain text, so wait for the final form.
    await expect.poll(() => answers.allInnerTexts()).toEqual(texts);
    expect(await maxTokensInput().inputValue()).toBe('64');
    await expect.poll(() => page.getByTestId('group-select').textContent()).toContain('default');
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem('playground-settings') ?? '{}').group)).toBe('default');
    upstream.script({ path: '/v1/chat/completions', reply: 'short', reasoning: 'The user wants brevity.', times: 1 });
    await ask('Keep it short');
    await waitForSettledReply();
    expect(lastChatRequest()?.body).toMatchObject({ max_tokens: 64 });
    // A reasoning model's thinking is kept apart, folded once the answer is there, and not sent back.
    const thinking = lastReply().getByTestId('message-reasoning');
    expect(await thinking.textContent()).toContain('The user wants brevity.');
    expect(await thinking.getAttribute('open')).toBeNull();
    expect(await lastReply().locator('.pg-markdown').textContent()).toBe('short');
    upstream.script({ path: '/v1/chat/completions', reply: 'ok', times: 1 });
    await ask('Thanks');
    await waitForSettledReply();
    expect(JSON.stringify(lastChatRequest()?.body.messages)).not.toContain('brevity');
  });

  it('renders a hostile Markdown answer inert, highlighted code included, also after a reload', async () => {
    const hostile = [
      'Look <img src=x onerror="window.__pwned=1"> here',
      '[click me](javascript:window.__pwned=2) and [site](https://example.com/docs)',
      '<script>window.__pwned=3</script>',
      '<iframe src="javascript:window.__pwned=4"></iframe>',
      '![beacon](https://tracker.invalid/pixel.png)',
      '```js\nconst answer = 42;\n```',
    ].join('\n\n');
    upstream.script({ path: '/v1/chat/completions', reply: hostile, times: 1 });
    const fetched: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('tracker.invalid') || request.url().endsWith('/x')) fetched.push(request.url());
    });
    await page.getByTestId('clear-context').click();
    await ask('Be hostile');
    await waitForSettledReply();

    const check = async () => {
      const reply = lastReply();
      await reply.locator('.hljs-keyword').first().waitFor();
      expect(await reply.locator('img, script, iframe').count()).toBe(0);
      expect(await page.locator('a[href^="javascript"], iframe[src^="javascript"]').count()).toBe(0);
      expect(await reply.locator('a[href="https://example.com/docs"]').getAttribute('rel')).toContain('noopener');
      const text = (await reply.textContent()) ?? '';
      expect(text).toContain('<img src=x onerror="window.__pwned=1">');
      expect(text).toContain('<script>window.__pwned=3</script>');
      expect(text).toContain('click me');
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(fetched).toEqual([]);
    };
    await check();
    await browser.screenshot('pg-02-hostile-markdown');
    await page.reload();
    await check();
  });

  it('shows relay errors on the message in the user language', async () => {
    // No channel serves this model: the relay answers 503 before any byte, in the user's language on the message.
    await page.evaluate(() => {
      const settings = JSON.parse(localStorage.getItem('playground-settings') ?? '{}');
      localStorage.setItem('playground-settings', JSON.stringify({ ...settings, model: 'model-without-channel' }));
    });
    await page.reload();
    await ask('Anyone there?');
    await waitForSettledReply();
    expect(await replyStatus()).toBe('error');
    const error = lastReply().getByTestId('message-error');
    expect(await error.getAttribute('data-kind')).toBe('noChannel');
    await error.getByText('当前分组下没有可用渠道提供该模型').waitFor();
    await error.getByText('no available channel for model model-without-channel', { exact: false }).waitFor();
    await browser.screenshot('pg-03-relay-error');

    // An upstream failure after a few words: the words stay, the message turns to error.
    await page.evaluate(() => {
      const settings = JSON.parse(localStorage.getItem('playground-settings') ?? '{}');
      localStorage.setItem('playground-settings', JSON.stringify({ ...settings, model: 'gpt-4o-mini' }));
      localStorage.setItem('i18nextLng', 'en');
    });
    await page.reload();
    upstream.script({ path: '/v1/chat/completions', reply: 'first words then the line drops', resetAfterChunks: 2, times: 1 });
    await ask('Break mid-way');
    await waitForSettledReply();
    expect(await replyStatus()).toBe('error');
    expect(await replyText()).toContain('first words');
    // The earlier error is shown again, now in English: the kind is stored, the text follows the language.
    await page.getByText('No channel serves this model in the selected group').waitFor();
    await page.evaluate(() => localStorage.setItem('i18nextLng', 'zh'));
  });

  it('shows a user without quota, then with an expired login, why the answer failed', async () => {
    const created = await consoleCall(page, 'POST', '/api/user/', { ...ALICE, display_name: 'Alice' });
    expect(created.success, created.message).toBe(true);
    await switchUser(browser, ALICE);
    await page.goto('/playground');
    await ask('Free lunch?');
    await waitForSettledReply();
    const error = lastReply().getByTestId('message-error');
    expect(await error.getAttribute('data-kind')).toBe('quota');
    await error.getByText('额度不足，请充值或联系管理员').waitFor();
    expect(await error.getByTestId('message-error-fix').getAttribute('href')).toBe('/topup');

    // The session ends (cookie gone) while the page is open: the answer says so and offers to log in again.
    await browser.context.clearCookies();
    await ask('Still there?');
    await waitForSettledReply();
    const expired = lastReply().getByTestId('message-error');
    expect(await expired.getAttribute('data-kind')).toBe('expired');
    await expired.getByText('未登录或登录已过期，请重新登录！').waitFor();
    expect(await expired.getByTestId('message-error-fix').getAttribute('href')).toBe('/login?expired=true');
    await switchUser(browser, ROOT);
  });

  it('on a phone: toggles the settings, sends images to a vision model without streaming', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    try {
      await page.goto('/playground');
      await page.getByTestId('clear-context').click();
      expect(await page.getByTestId('playground-settings').count()).toBe(0);
      await page.getByTestId('toggle-panel').click();
      await page.getByTestId('stream-switch').click();
      await page.getByTestId('toggle-panel').click();
      await page.getByTestId('playground-settings').waitFor({ state: 'detached' });

      await page.getByTestId('toggle-images').click();
      await page.getByTestId('image-url').fill('https://images.example/cat.png');
      await page.getByTestId('image-add').click();
      // A 1×1 PNG picked from disk travels inline as a data: URL.
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
      await page
        .getByTestId('image-attachments')
        .locator('input[type="file"]')
        .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png });
      await page.getByTestId('image-attachments').locator('img').nth(1).waitFor();
      upstream.script({ path: '/v1/chat/completions', reply: 'Two images seen', times: 1 });
      await ask('What do you see?');
      await waitForSettledReply();
      expect(await replyStatus()).toBe('complete');
      expect(await replyText()).toBe('Two images seen');
      const sent = lastChatRequest()?.body;
      expect(sent.stream).toBeFalsy();
      expect(sent.messages.at(-1)).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: 'What do you see?' },
          { type: 'image_url', image_url: { url: 'https://images.example/cat.png' } },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
        ],
      });
      expect(await page.getByTestId('message-user').last().locator('img').count()).toBe(2);
      await browser.screenshot('pg-05-mobile-images');
    } finally {
      await page.setViewportSize({ width: 1366, height: 860 });
    }
  });
  // Last: a rate-limited channel may be cooled down afterwards, which would starve any test after this one.
  it('shows a rate limit from the provider on the message', async () => {
    upstream.script({ path: '/v1/chat/completions', status: 429, errorMessage: 'Rate limit reached for requests', retryAfter: 20 });
    await ask('Again and again');
    await waitForSettledReply();
    const error = lastReply().getByTestId('message-error');
    expect(await error.getAttribute('data-kind')).toBe('rateLimited');
    await error.getByText('请求过于频繁，请稍后再试').waitFor();
  });
});
