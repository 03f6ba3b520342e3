/// <reference lib="dom" />
// The playground remote in Chromium, against the built gateway and a fake OpenAI upstream: streamed answers
// and their states, stop, retry, edit, the debug panel, relay errors, hostile Markdown, the conversation kept
// across reloads, and the chat pages (/chat/:id framing a client with the user's key, /chat2link, no token).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeUpstream } from '../fake-upstream/index.js';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser } from './support/chromium.js';
import { consoleCall } from './support/console-api.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[browser suite skipped] ${skipReason}`);

const ROOT = { username: 'root', password: 'browser-pass-123' };
const ALICE = { username: 'alice', password: 'alice-pass-123' };
const MODEL = 'gpt-4o-mini';

/** A stand-in chat client (a web page the console frames), recording the URLs it was opened with. */
async function startChatClient(): Promise<{ url: string; opened: string[]; server: Server }> {
  const opened: string[] = [];
  const server = createServer((req, res) => {
    opened.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>client</title><p>chat client ready</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, opened, server };
}

describe.skipIf(skipReason !== null)('playground remote in Chromium', () => {
  let gateway: GatewayProcess;
  let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
  let client: Awaited<ReturnType<typeof startChatClient>>;
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

  /** Logs out on a page that runs no console code (so no request of the old session races the logout), then in. */
  async function switchUser(user: { username: string; password: string }) {
    await page.goto('/api/status');
    await browser.context.clearCookies();
    await page.evaluate(() => localStorage.removeItem('user'));
    await login(user);
  }

  async function login(user: { username: string; password: string }) {
    await page.goto('/login');
    await page.locator('input[name="username"]').fill(user.username);
    await page.locator('input[name="password"]').fill(user.password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL((url) => url.pathname !== '/login');
  }

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    client = await startChatClient();
    gateway = await startGatewayProcess();
    browser = await launchConsoleBrowser(gateway.url);
    page = browser.page;
    page.setDefaultTimeout(15_000);

    const setup = await fetch(`${gateway.url}/api/setup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        username: ROOT.username,
        password: ROOT.password,
        confirmPassword: ROOT.password,
        SelfUseModeEnabled: false,
        DemoSiteEnabled: false,
      }),
    });
    expect(((await setup.json()) as { success: boolean }).success).toBe(true);
    await login(ROOT);
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
    await new Promise((resolve) => client?.server.close(resolve));
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await browser.screenshot(`failed-playground-${context.task.name.replace(/\W+/g, '-')}`);
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

    await page.getByTestId('toggle-debug').click();
    expect(JSON.parse((await page.getByTestId('debug-request').textContent()) ?? '')).toMatchObject({
      model: MODEL,
      group: '',
      stream: true,
    });
    const response = (await page.getByTestId('debug-response').textContent()) ?? '';
    expect(response).toContain('chat.completion.chunk');
    expect(response).toContain('data: [DONE]');
    await browser.screenshot('pg-01-debug-panel');
    await page.locator('.semi-sidesheet-close').click();
    await page.getByTestId('debug-request').waitFor({ state: 'hidden' });
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
    const texts = await page.getByTestId('message-assistant').allInnerTexts();
    await maxTokensInput().fill('64');
    // The pickers offer the user's usable groups and the models enabled for them.
    await page.getByTestId('model-select').click();
    await page.locator('.semi-select-option', { hasText: MODEL }).first().waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('group-select').click();
    await page.locator('.semi-select-option', { hasText: 'default' }).first().click();
    await expect.poll(() => page.getByTestId('group-select').textContent()).toContain('default');
    await page.reload();
    await page.getByTestId('message-assistant').first().waitFor();
    expect(await page.getByTestId('message-assistant').allInnerTexts()).toEqual(texts);
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
    await switchUser(ALICE);
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
    await switchUser(ALICE);
  });

  it('sends a user with no enabled token from /chat/0 to /token after 1.5 s', async () => {
    await page.goto('/chat/0');
    const shownAt = Date.now();
    await page.locator('.semi-toast-content').getByText('当前没有可用的启用令牌，请确认是否有令牌处于启用状态！').waitFor();
    await page.waitForURL('**/token');
    expect(Date.now() - shownAt).toBeGreaterThanOrEqual(1_200);
    await switchUser(ROOT);
  });

  it('frames the configured chat link with the key filled in, opens app links outside, and builds /chat2link', async () => {
    const chats = [
      { 'Web client': `${client.url}/client?settings={"key":"{key}","url":"{address}"}` },
      { 'Cherry Studio': 'cherrystudio://providers/api-keys?v=1&data={cherryConfig}' },
      { 'Bare word': 'fluentread' },
    ];
    const saved = await consoleCall(page, 'PUT', '/api/option/', { key: 'Chats', value: JSON.stringify(chats) });
    expect(saved.success, saved.message).toBe(true);
    const token = await consoleCall(page, 'POST', '/api/token/', { name: 'chat', unlimited_quota: true, expired_time: -1 });
    expect(token.success, token.message).toBe(true);
    const list = await consoleCall<{ items: { id: number }[] }>(page, 'GET', '/api/token/?p=1&size=100');
    const revealed = await consoleCall<{ key: string }>(page, 'POST', `/api/token/${list.data.items[0]!.id}/key`);
    const key = revealed.data.key;
    expect(key).toMatch(/^sk-[A-Za-z0-9]{48}$/);

    await page.goto('/chat/0');
    const frame = page.getByTestId('chat-frame');
    await frame.waitFor();
    const src = new URL((await frame.getAttribute('src'))!);
    expect(src.origin).toBe(client.url);
    expect(JSON.parse(src.searchParams.get('settings')!)).toEqual({ key, url: gateway.url });
    await page.frameLocator('[data-testid="chat-frame"]').getByText('chat client ready').waitFor();
    expect(client.opened.some((url) => url.includes(key))).toBe(true);
    await browser.screenshot('pg-04-chat-frame');

    await page.goto('/chat/1');
    const open = page.getByTestId('open-chat-client');
    await open.waitFor();
    expect(await page.getByTestId('chat-frame').count()).toBe(0);
    const href = (await open.getAttribute('href'))!;
    const prefix = 'cherrystudio://providers/api-keys?v=1&data=';
    expect(href.startsWith(prefix)).toBe(true);
    expect(JSON.parse(Buffer.from(decodeURIComponent(href.slice(prefix.length)), 'base64').toString('utf8'))).toEqual({
      id: 'new-api',
      baseUrl: gateway.url,
      apiKey: key,
    });

    await page.goto('/chat/2');
    await page.getByText('聊天链接配置错误，请联系管理员').waitFor();
    await page.goto('/chat/9');
    await page.getByText('聊天链接配置错误，请联系管理员').waitFor();

    await page.goto('/chat2link');
    await page.waitForURL((url) => url.origin === client.url);
    expect(JSON.parse(new URL(page.url()).searchParams.get('settings')!)).toEqual({ key, url: gateway.url });
    expect(browser.errors).toEqual([]);
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
});
