/// <reference lib="dom" />
// The console end to end in Chromium, against the built gateway and a fake OpenAI upstream:
// setup wizard, login, the three remotes (admin users, user tokens, playground), language, theme,
// and a remote that cannot load. Screenshots of each page go to test-results/screenshots/.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeUpstream } from '../fake-upstream/index.js';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser } from './support/chromium.js';
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
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await browser.screenshot(`failed-${context.task.name.replace(/\W+/g, '-')}`);
  });

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
    const alice = await consoleCall<{ items: { username: string; display_name: string; quota: number }[] }>(page, 'GET', '/api/user/search?keyword=alice');
    expect(alice.data.items[0]).toMatchObject({ display_name: 'Alice <b>Browser</b>', quota: 1_000_000 });

    await aliceRow.getByRole('button', { name: '禁用' }).click();
    await aliceRow.getByText('已封禁').waitFor();
    await aliceRow.getByRole('button', { name: '启用' }).waitFor();
    await browser.screenshot('04-users');
  });

  it('creates a token in the user remote and copies its full key', async () => {
    await page.goto('/token');
    await page.getByText('令牌仅供个人使用', { exact: false }).waitFor();
    await page.getByTestId('create-token').click();
    await page.getByTestId('token-name').fill('browser-token');
    await page.getByTestId('token-submit').click();
    const row = page.getByTestId('tokens-table').locator('tr', { hasText: 'browser-token' });
    await row.waitFor();
    const masked = (await row.locator('code').innerText()).trim();
    expect(masked).toMatch(/^sk-.*\*+/);

    await row.locator('[data-testid^="copy-key-"]').click();
    await page.getByText('已复制到剪贴板！').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    await browser.screenshot('05-tokens');
  });

  it('streams a reply from the fake upstream in the playground remote', async () => {
    const created = await consoleCall(page, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'fake upstream', key: 'sk-upstream-test', base_url: upstream.url, models: MODEL, group: 'default' },
    });
    expect(created.success, created.message).toBe(true);

    await page.goto('/playground');
    await page.getByTestId('chat-input').fill('Say hello');
    await page.getByTestId('send').click();
    const reply = page.getByTestId('message-assistant').last();
    await page.waitForFunction(() => {
      const bubbles = document.querySelectorAll('[data-testid="message-assistant"]');
      const last = bubbles[bubbles.length - 1];
      return last && ['complete', 'error'].includes(last.getAttribute('data-status') ?? '');
    }, undefined, { timeout: 30_000 });
    expect(await reply.getAttribute('data-status')).toBe('complete');
    expect((await reply.innerText()).trim().length).toBeGreaterThan(0);
    await browser.screenshot('06-playground');

    await page.getByTestId('clear-context').click();
    expect(await page.getByTestId('message-assistant').count()).toBe(0);
  });

  it('switches the language to English and back', async () => {
    await page.goto('/token');
    await page.getByTestId('language-menu').click();
    await page.getByTestId('language-en').click();
    await sidebar().getByText('User management', { exact: true }).waitFor();
    await page.getByText('Tokens are for personal use only', { exact: false }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('i18nextLng'))).toBe('en');
    await browser.screenshot('07-english');

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

  it('shows an error panel for an unreachable remote while the rest of the console works', async () => {
    await page.route('**/remotes/playground/**', (route) => route.abort());
    await page.goto('/playground');
    const panel = page.getByTestId('remote-error-panel');
    await panel.waitFor({ timeout: 20_000 });
    await browser.screenshot('09-remote-down');

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
