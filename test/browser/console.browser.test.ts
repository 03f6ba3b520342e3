/// <reference lib="dom" />
// The console end to end in Chromium, against the built gateway and a fake OpenAI upstream:
// setup wizard, login, the three remotes (admin users, user tokens, playground), language, theme,
// and a remote that cannot load. Screenshots of each page go to test-results/screenshots/.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeUpstream } from '../fake-upstream/index.js';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser, screenshotIfFailed } from './support/chromium.js';
import { consoleCall } from './support/console-api.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[browser suite skipped] ${skipReason}`);

const ROOT = { username: 'root', password: 'browser-pass-123' };
const MODEL = 'gpt-4o-mini';

describe.skipIf(skipReason !== null)('console in Chromium', () => {
  let gateway: GatewayProcess;
  let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
  let browser: ConsoleBrowser;
  let page: Page;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await startGatewayProcess();
    browser = await launchConsoleBrowser(gateway.url);
    page = browser.page;
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await upstream?.close();
  });

  // A failed step leaves a picture of what the browser showed.
  afterEach((context) => screenshotIfFailed(context, browser, 'console'));

  const sidebar = () => page.getByTestId('sidebar');

  it('sends a fresh install to /setup and initialises it', async () => {
    await page.goto('/');
    await page.waitForURL('**/setup');
    await page.getByText('系统初始化', { exact: true }).first().waitFor();
    await page.getByText('数据库警告').waitFor();
    await browser.screenshot('01-setup');

    await page.locator('input[name="username"]').fill(ROOT.username);
    await page.locator('input[name="password"]').fill('short');
    await page.locator('input[name="confirmPassword"]').fill('short');
    await page.getByTestId('setup-submit').click();
    await page.getByText('密码长度至少为8个字符').waitFor();

    await page.locator('input[name="password"]').fill(ROOT.password);
    await page.locator('input[name="confirmPassword"]').fill(ROOT.password);
    await page.getByTestId('setup-submit').click();
    // The wizard reloads after 1.5 s; a set-up site no longer redirects to /setup.
    await page.waitForURL((url) => url.pathname === '/', { timeout: 15_000 });
    const status = await consoleCall<{ setup: boolean }>(page, 'GET', '/api/status');
    expect(status.data.setup).toBe(true);
  });

  it('rejects a guest on a protected page and shows the 404 page for unknown paths', async () => {
    await page.goto('/token');
    await page.waitForURL('**/login');
    await page.goto('/no/such/page');
    await page.getByText('页面不存在，请检查您的浏览器地址是否正确').waitFor();
    await browser.screenshot('02-not-found');
  });

  it('shows the public pages to a guest without loading any remote', async () => {
    const remoteRequests: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (new URL(request.url()).pathname.startsWith('/remotes/')) remoteRequests.push(request.url());
    };
    page.on('request', onRequest);
    try {
      await page.goto('/');
      await page.getByRole('button', { name: '开始使用' }).waitFor();
      expect(await sidebar().count()).toBe(0);
      await browser.screenshot('02-home');

      await page.goto('/pricing');
      await page.getByText('您还未登录', { exact: false }).waitFor();
      await browser.screenshot('02-pricing');

      await page.goto('/about');
      await page.getByText('管理员尚未设置关于页面内容。').waitFor();
      await browser.screenshot('02-about');

      await page.goto('/register');
      await page.getByText('确认密码', { exact: true }).waitFor();
      await browser.screenshot('02-register');

      await page.goto('/reset');
      await page.getByText('密码重置', { exact: true }).waitFor();
      await browser.screenshot('02-reset');
    } finally {
      page.off('request', onRequest);
    }
    // Remotes are fetched only when one of their routes is visited.
    expect(remoteRequests).toEqual([]);
  });

  it('logs in as root and shows the admin sidebar entries', async () => {
    await page.goto('/login?expired=true');
    await page.getByText('未登录或登录已过期，请重新登录！').first().waitFor();
    await page.locator('input[name="username"]').fill(ROOT.username);
    await page.locator('input[name="password"]').fill(ROOT.password);
    await browser.screenshot('03-login');
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/token');
    for (const entry of ['渠道', '兑换码管理', '用户管理', '系统设置', 'API令牌', '钱包']) {
      await sidebar().getByText(entry, { exact: true }).waitFor();
    }
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('user') ?? 'null') as { role: number } | null);
    expect(stored?.role).toBe(100);
  });

  it('lists, creates, edits and disables users in the admin remote', async () => {
    await sidebar().getByText('用户管理', { exact: true }).click();
    await page.waitForURL('**/user');
    const table = page.getByTestId('users-table');
    await table.getByText(ROOT.username, { exact: true }).waitFor();

    await page.getByTestId('add-user').click();
    await page.getByTestId('add-username').fill('alice');
    await page.getByTestId('add-password').fill('alice-pass-123');
    await page.getByTestId('add-user-submit').click();
    const aliceRow = table.locator('tr', { hasText: 'alice' });
    await aliceRow.waitFor();

    await aliceRow.getByRole('button', { name: '编辑' }).click();
    const displayName = page.getByTestId('edit-display-name');
    await displayName.waitFor();
    await displayName.fill('Alice <b>Browser</b>');
    await page.locator('input[data-testid="edit-quota"], [data-testid="edit-quota"] input').fill('1000000');
    await page.getByTestId('edit-user-submit').click();
    await page.getByText('用户信息更新成功！').waitFor();
    const alice = await consoleCall<{ items: { username: string; display_name: string; quota: number }[] }>(
      page,
      'GET',
      '/api/user/search?keyword=alice',
    );
    expect(alice.data.items[0]).toMatchObject({ display_name: 'Alice <b>Browser</b>', quota: 1_000_000 });

    await aliceRow.getByRole('button', { name: '禁用' }).click();
    await aliceRow.getByText('已封禁').waitFor();
    await aliceRow.getByRole('button', { name: '启用' }).waitFor();
    await browser.screenshot('04-users');
  });

  it('stacks a Semi modal layer opened in a remote above the shell', async () => {
    await page.goto('/user');
    await page.getByTestId('add-user').click();
    await page.getByTestId('add-username').waitFor();
    // The point sits on the shell's sticky top bar; the remote's side sheet mask must be what receives it.
    const topmost = await page.evaluate(() => {
      const element = document.elementFromPoint(8, 8);
      return { inPortal: Boolean(element?.closest('.semi-portal')), inHeader: Boolean(element?.closest('header')) };
    });
    expect(topmost).toEqual({ inPortal: true, inHeader: false });
    await browser.screenshot('04-users-drawer');
    await page.locator('.semi-sidesheet').getByRole('button', { name: '取消' }).click();
    await page.getByTestId('add-username').waitFor({ state: 'hidden' });
  });

  it('creates a token in the user remote and copies its full key', async () => {
    await page.goto('/token');
    await page.getByText('令牌仅供个人使用', { exact: false }).waitFor();
    await page.getByTestId('create-token').click();
    await page.getByTestId('token-name').fill('browser-token');
    // The date picker is fetched from the shell's kit on first use; the expiry shortcuts fill and clear it.
    const drawer = page.locator('.semi-sidesheet');
    const expiry = drawer.locator('.semi-datepicker input');
    await expiry.waitFor();
    await drawer.getByRole('button', { name: '一小时' }).click();
    expect(await expiry.inputValue()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    await drawer.getByRole('button', { name: '永不过期' }).click();
    expect(await expiry.inputValue()).toBe('');
    await page.getByTestId('token-submit').click();
    const row = page.getByTestId('tokens-table').locator('tr', { hasText: 'browser-token' });
    await row.waitFor();
    await row.getByText('永不过期').waitFor();
    const masked = (await row.locator('code').innerText()).trim();
    expect(masked).toMatch(/^sk-.*\*+/);

    await row.locator('[data-testid^="copy-key-"]').click();
    await page.getByText('已复制到剪贴板！').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    await browser.screenshot('05-tokens');

    // A browser that refuses the clipboard gets the key in the kit's manual-copy dialog, stacked above the shell.
    await page.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));
    });
    await row.locator('[data-testid^="copy-key-"]').click();
    const dialog = page.locator('.semi-modal').filter({ hasText: '无法复制到剪贴板，请手动复制' });
    await dialog.getByText(copied).waitFor();
    expect(await page.evaluate(() => Boolean(document.elementFromPoint(8, 8)?.closest('.semi-portal')))).toBe(true);
    await browser.screenshot('05-tokens-copy-dialog');
    // Semi labels the dialog's buttons 'confirm'/'cancel' for screen readers; the visible text is localised.
    await dialog.locator('.semi-modal-footer').getByText('确定', { exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('offers the auto group in the token form, preselected with DefaultUseAutoGroup, with its cross-group retry switch', async () => {
    const option = (key: string, value: string) => consoleCall(page, 'PUT', '/api/option/', { key, value });
    expect((await option('UserUsableGroups', '{"default":"默认分组","vip":"vip分组","auto":"自动选择"}')).success).toBe(true);
    expect((await option('DefaultUseAutoGroup', 'true')).success).toBe(true);
    // A fresh load reads /api/status again.
    await page.goto('/token');
    await page.reload();
    await page.getByTestId('create-token').click();
    await page.getByTestId('token-name').fill('auto-token');
    const retry = page.getByTestId('token-cross-group-retry');
    await retry.waitFor();
    await page.locator('.semi-sidesheet').getByText('auto · 自动选择', { exact: false }).waitFor();
    await retry.click();
    await browser.screenshot('05-tokens-auto-group');
    await page.getByTestId('token-submit').click();
    await page.getByTestId('tokens-table').locator('tr', { hasText: 'auto-token' }).waitFor();
    const list = await consoleCall<{ items: { name: string; group: string; cross_group_retry: boolean }[] }>(
      page,
      'GET',
      '/api/token/?p=1&page_size=50',
    );
    expect(list.data.items.find((t) => t.name === 'auto-token')).toMatchObject({ group: 'auto', cross_group_retry: true });
    expect((await option('DefaultUseAutoGroup', 'false')).success).toBe(true);
    expect((await option('UserUsableGroups', '{"default":"默认分组","vip":"vip分组"}')).success).toBe(true);
  });

  it('streams a reply from the fake upstream in the playground remote', async () => {
    const created = await consoleCall(page, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'fake upstream', key: 'sk-upstream-test', base_url: upstream.url, models: MODEL, group: 'default' },
    });
    expect(created.success, created.message).toBe(true);

    // Words arrive 120 ms apart, so the reply is seen growing (incomplete) before it completes.
    const REPLY = 'Streaming reaches the playground word by word';
    upstream.script({ path: '/v1/chat/completions', reply: REPLY, chunkDelayMs: 120, times: 1 });
    const lastReplyStatus = () =>
      page.evaluate(() => {
        const bubbles = document.querySelectorAll('[data-testid="message-assistant"]');
        return bubbles[bubbles.length - 1]?.getAttribute('data-status') ?? null;
      });
    await page.goto('/playground');
    await page.getByTestId('chat-input').fill('Say hello');
    await page.getByTestId('send').click();
    const reply = page.getByTestId('message-assistant').last();
    await page.locator('[data-testid="message-assistant"][data-status="incomplete"]').waitFor();
    await page.waitForFunction(
      () => {
        const bubbles = document.querySelectorAll('[data-testid="message-assistant"]');
        return ['complete', 'error'].includes(bubbles[bubbles.length - 1]?.getAttribute('data-status') ?? '');
      },
      undefined,
      { timeout: 30_000 },
    );
    expect(await lastReplyStatus()).toBe('complete');
    expect((await reply.innerText()).trim()).toBe(REPLY);
    const sent = upstream.requests.filter((request) => request.path.startsWith('/v1/chat/completions')).at(-1);
    expect(sent?.body).toMatchObject({
      model: MODEL,
      stream: true,
      messages: [{ role: 'system' }, { role: 'user', content: 'Say hello' }],
    });
    await browser.screenshot('06-playground');

    // Stop ends a reply mid-stream: it keeps the words received so far and is final.
    upstream.script({
      path: '/v1/chat/completions',
      reply: 'one two three four five six seven eight nine ten',
      chunkDelayMs: 400,
      times: 1,
    });
    await page.getByTestId('chat-input').fill('Count to ten');
    await page.getByTestId('send').click();
    await page.locator('[data-testid="message-assistant"][data-status="incomplete"]').waitFor();
    await page.getByTestId('stop').click();
    await page.getByTestId('send').waitFor();
    expect(await lastReplyStatus()).toBe('complete');
    expect((await reply.innerText()).trim()).not.toContain('ten');

    await page.getByTestId('clear-context').click();
    expect(await page.getByTestId('message-assistant').count()).toBe(0);
  });

  it('warns about an expired login and an unparsable chat chunk in the playground', async () => {
    await page.goto('/playground?expired=true');
    await page.locator('.semi-toast-content').getByText('未登录或登录已过期，请重新登录！').waitFor();

    // The gateway never sends a broken chunk, so this one answer is forged in the browser: the bad line
    // is reported and the reply still completes with the chunks around it.
    await page.route('**/pg/chat/completions', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: `data: {"choices":[{"delta":{"content":"before "}}]}\n\ndata: {not json\n\ndata: {"choices":[{"delta":{"content":"after"}}]}\n\ndata: [DONE]\n\n`,
      }),
    );
    try {
      await page.getByTestId('chat-input').fill('Break the stream');
      await page.getByTestId('send').click();
      await page.locator('.semi-toast-content').getByText('聊天数据解析失败').waitFor();
      const reply = page.locator('[data-testid="message-assistant"][data-status="complete"]').last();
      await reply.waitFor();
      expect((await reply.innerText()).trim()).toBe('before after');
      await browser.screenshot('06-playground-warnings');
    } finally {
      await page.unroute('**/pg/chat/completions');
    }
  });

  it('prices the channel model for the logged-in user on the pricing page', async () => {
    await page.goto('/pricing');
    await page.getByText('您的分组为 default', { exact: false }).waitFor();
    const row = page.locator('tr', { hasText: MODEL });
    await row.waitFor();
    await row.getByText('按量计费').waitFor();
    // Ratio 0.075 × $2 × group ratio 1 per 1M prompt tokens, × completion ratio 4 for completions.
    await row.getByText('提示 $0.15 / 1M tokens').waitFor();
    await row.getByText('补全 $0.6 / 1M tokens').waitFor();
    await browser.screenshot('06-pricing-user');

    // The ratio column's help popup explains the ratios with an inline picture (no image download).
    await page.getByTestId('ratio-help').click();
    const popup = page.getByTestId('ratio-help-popup');
    await popup.getByText('倍率是为了方便换算不同价格的模型').waitFor();
    const figure = popup.getByRole('img', { name: '倍率说明图' });
    await figure.waitFor();
    expect(await figure.locator('text').allTextContents()).toEqual(expect.arrayContaining(['模型倍率', '分组倍率', '补全倍率']));
    await browser.screenshot('06-pricing-ratio-help');

    // A model billed by its expression (billing_setting) shows the expression instead of ratios.
    const expression = 'len <= 200000 ? tier("standard", p * 3 + c * 15) : tier("long", p * 6 + c * 22.5)';
    const setBilling = async (mode: object, expr: object) => {
      expect(
        (await consoleCall(page, 'PUT', '/api/option/', { key: 'billing_setting.billing_expr', value: JSON.stringify(expr) })).success,
      ).toBe(true);
      expect(
        (await consoleCall(page, 'PUT', '/api/option/', { key: 'billing_setting.billing_mode', value: JSON.stringify(mode) })).success,
      ).toBe(true);
    };
    await setBilling({ [MODEL]: 'tiered_expr' }, { [MODEL]: expression });
    try {
      await page.reload();
      const priced = page.locator('tr', { hasText: MODEL });
      await priced.getByText('表达式计费', { exact: true }).waitFor();
      await priced.getByText('按表达式计费', { exact: false }).waitFor();
      expect(await page.getByTestId(`pricing-expr-${MODEL}`).innerText()).toBe(expression);
      await browser.screenshot('06-pricing-expression');
    } finally {
      await setBilling({}, {});
    }
  });

  it('switches the language to English and back', async () => {
    await page.goto('/token');
    await page.getByTestId('language-menu').click();
    await page.getByTestId('language-en').click();
    await sidebar().getByText('User management', { exact: true }).waitFor();
    await page.getByText('Tokens are for personal use only', { exact: false }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('i18nextLng'))).toBe('en');
    await browser.screenshot('07-english');
    await page.goto('/playground?expired=true');
    await page.locator('.semi-toast-content').getByText('Not logged in or login expired, please log in again').waitFor();

    await page.getByTestId('language-menu').click();
    await page.getByTestId('language-zh').click();
    await sidebar().getByText('用户管理', { exact: true }).waitFor();
  });

  it('turns on dark mode and remembers it', async () => {
    await page.getByTestId('theme-switch').click();
    expect(await page.evaluate(() => document.body.getAttribute('theme-mode'))).toBe('dark');
    await page.reload();
    await sidebar().waitFor();
    expect(await page.evaluate(() => document.body.getAttribute('theme-mode'))).toBe('dark');
    await browser.screenshot('08-dark');
    await page.getByTestId('theme-switch').click();
    expect(await page.evaluate(() => document.body.getAttribute('theme-mode'))).toBeNull();
  });

  it('hides the sidebar under 600 px, offers its entries in a menu sheet and toggles the playground settings panel', async () => {
    const entryTexts = (nav: ReturnType<typeof sidebar>) => nav.locator('.semi-navigation-item-text').allInnerTexts();
    await page.goto('/token');
    await sidebar().getByText('用户管理', { exact: true }).waitFor();
    const desktopEntries = await entryTexts(sidebar());
    expect(await page.getByTestId('mobile-menu').count()).toBe(0);

    await page.setViewportSize({ width: 480, height: 860 });
    try {
      await page.getByTestId('create-token').waitFor();
      await sidebar().waitFor({ state: 'detached' });
      await browser.screenshot('09-mobile-tokens');

      // The menu sheet lists exactly the sidebar's entries (same flags and admin rules) and navigates.
      await page.getByTestId('mobile-menu').click();
      const sheet = page.getByTestId('mobile-sidebar');
      await sheet.getByText('用户管理', { exact: true }).waitFor();
      expect(await entryTexts(sheet)).toEqual(desktopEntries);
      // A trial click waits for the sheet's slide-in to settle, so the picture shows it fully open.
      await sheet.locator('.semi-navigation-item').first().click({ trial: true });
      await browser.screenshot('09-mobile-menu');
      await sheet.getByText('用户管理', { exact: true }).click();
      await page.waitForURL('**/user');
      await sheet.waitFor({ state: 'hidden' });
      await page.getByTestId('users-table').waitFor();

      // Like the sidebar, the menu is not offered on the home page.
      await page.goto('/');
      await page.getByRole('button', { name: '开始使用' }).waitFor();
      expect(await page.getByTestId('mobile-menu').count()).toBe(0);

      await page.goto('/playground');
      await page.getByTestId('chat-input').waitFor();
      expect(await page.getByTestId('playground-settings').count()).toBe(0);
      await page.getByTestId('toggle-panel').click();
      await page.getByTestId('playground-settings').waitFor();
      await browser.screenshot('09-mobile-playground');
    } finally {
      await page.setViewportSize({ width: 1366, height: 860 });
    }
    await sidebar().waitFor();
  });

  it('shows an error panel for an unreachable remote while the rest of the console works', async () => {
    await page.route('**/remotes/playground/**', (route) => route.abort());
    await page.goto('/playground');
    const panel = page.getByTestId('remote-error-panel');
    await panel.waitFor({ timeout: 20_000 });
    await browser.screenshot('10-remote-down');

    await sidebar().getByText('用户管理', { exact: true }).click();
    await page.getByTestId('users-table').getByText(ROOT.username, { exact: true }).waitFor();
    await sidebar().getByText('API令牌', { exact: true }).click();
    await page.getByTestId('tokens-table').waitFor();
    await sidebar().getByText('操练场', { exact: true }).click();
    await panel.waitFor();

    // Back online: the retry button fetches the manifest again instead of reusing the failure.
    await page.unroute('**/remotes/playground/**');
    await panel.getByRole('button').click();
    await page.getByTestId('chat-input').waitFor({ timeout: 20_000 });
    expect(browser.errors).toEqual([]);
  });
});
