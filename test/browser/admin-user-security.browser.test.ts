/// <reference lib="dom" />
// The admin users page's security panel in Chromium against the built gateway: a user's Telegram
// binding removed, their 2FA reset, then the user deleted for good, each through the console's buttons.
import { createHash, createHmac } from 'node:crypto';
import { generate } from 'otplib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser, screenshotIfFailed } from './support/chromium.js';
import { consoleCall } from './support/console-api.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[browser suite skipped] ${skipReason}`);

const ROOT = { username: 'root', password: 'browser-pass-123' };
const TARGET = { username: 'sec_target', password: 'target-pass-1' };
const BOT_TOKEN = '4242:browser-bot-token';

/** The target user's own API session, from Node (the browser stays logged in as root). */
class TargetSession {
  private cookie = '';
  id = 0;

  constructor(private readonly base: string) {}

  async call<T = any>(method: string, path: string, body?: unknown): Promise<{ success: boolean; message: string; data: T }> {
    const headers: Record<string, string> = { cookie: this.cookie };
    if (this.id) headers['New-Api-User'] = String(this.id);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const session = res.headers.getSetCookie().find((c) => c.startsWith('session='));
    if (session) this.cookie = session.split(';')[0]!;
    return res.json() as Promise<{ success: boolean; message: string; data: T }>;
  }

  /** A navigation the way a browser makes it (cookie, no New-Api-User); answers where it was sent. */
  async navigate(path: string): Promise<{ status: number; location: string | null }> {
    const res = await fetch(this.base + path, { headers: { cookie: this.cookie }, redirect: 'manual' });
    return { status: res.status, location: res.headers.get('location') };
  }
}

function telegramQuery(data: Record<string, string>): string {
  const check = Object.keys(data)
    .sort()
    .map((k) => `${k}=${data[k]}`)
    .join('\n');
  const hash = createHmac('sha256', createHash('sha256').update(BOT_TOKEN).digest()).update(check).digest('hex');
  return new URLSearchParams({ ...data, hash }).toString();
}

describe.skipIf(skipReason !== null)('admin user security panel in Chromium', () => {
  let gateway: GatewayProcess;
  let browser: ConsoleBrowser;
  let page: Page;
  let target: TargetSession;

  const confirmPopover = () => page.locator('.semi-popconfirm').getByRole('button', { name: '确定' }).click();

  beforeAll(async () => {
    gateway = await startGatewayProcess();
    const setup = await fetch(`${gateway.url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password, SelfUseModeEnabled: false, DemoSiteEnabled: false }),
    });
    expect((await setup.json()).success).toBe(true);
    browser = await launchConsoleBrowser(gateway.url);
    page = browser.page;
    page.setDefaultTimeout(20_000);
    await page.goto('/login');
    await page.locator('input[name="username"]').fill(ROOT.username);
    await page.locator('input[name="password"]').fill(ROOT.password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/token');
    for (const [key, value] of [
      ['TelegramOAuthEnabled', 'true'],
      ['TelegramBotToken', BOT_TOKEN],
    ]) {
      expect((await consoleCall(page, 'PUT', '/api/option/', { key, value })).success, key).toBe(true);
    }
    expect((await consoleCall(page, 'POST', '/api/user/', TARGET)).success).toBe(true);

    target = new TargetSession(gateway.url);
    const login = await target.call<{ id: number }>('POST', '/api/user/login', TARGET);
    expect(login.success, login.message).toBe(true);
    target.id = login.data.id;
    const twoFa = await target.call<{ secret: string }>('POST', '/api/user/2fa/setup');
    expect((await target.call('POST', '/api/user/2fa/enable', { code: await generate({ secret: twoFa.data.secret }) })).success).toBe(true);
    const now = String(Math.floor(Date.now() / 1000));
    // Telegram's widget sends the browser to the bind URL; a binding sends it back to the personal page.
    const bound = await target.navigate(`/api/oauth/telegram/bind?${telegramQuery({ id: '9001', first_name: 'Sec', auth_date: now })}`);
    expect(bound).toEqual({ status: 302, location: '/personal' });
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  afterEach((context) => screenshotIfFailed(context, browser, 'user-security'));

  it('shows the user’s bindings and removes the Telegram one', async () => {
    await page.goto(`/user/edit/${target.id}`);
    const panel = page.getByTestId('user-security');
    await panel.getByTestId('binding-telegram').waitFor();
    expect(await panel.getByTestId('binding-telegram').textContent()).toContain('9001');
    await browser.screenshot('user-security-01-bindings');
    await panel.getByTestId('binding-telegram').getByRole('button').click();
    await confirmPopover();
    await panel.getByTestId('binding-telegram').waitFor({ state: 'detached' });
    expect((await consoleCall<{ telegram_id: string }>(page, 'GET', `/api/user/${target.id}`)).data.telegram_id).toBe('');
  });

  it('resets the user’s 2FA', async () => {
    expect((await target.call<{ enabled: boolean }>('GET', '/api/user/2fa/status')).data.enabled).toBe(true);
    await page.getByTestId('user-reset-2fa').click();
    await confirmPopover();
    // The reset also ends the user's sessions; the password alone signs in again, with no 2FA step.
    await expect.poll(async () => (await target.call<{ id?: number }>('POST', '/api/user/login', TARGET)).data?.id).toBe(target.id);
    expect((await target.call<{ enabled: boolean }>('GET', '/api/user/2fa/status')).data.enabled).toBe(false);
    expect((await consoleCall(page, 'DELETE', `/api/user/${target.id}/2fa`)).success).toBe(false);
  });

  it('shows a channel key only after the session re-verifies with the password', async () => {
    const key = 'sk-browser-channel-key-0042';
    expect(
      (await consoleCall(page, 'POST', '/api/channel/', { name: 'key-holder', key, models: 'm', base_url: 'https://api.openai.com' }))
        .success,
    ).toBe(true);
    await page.goto('/channel');
    await page.getByTestId('channels-table').locator('tr', { hasText: 'key-holder' }).getByRole('button', { name: '编辑' }).click();
    await page.getByTestId('channel-reveal-key').click();
    await page.getByTestId('verify-secret').fill('not-the-password');
    await page.getByTestId('verify-submit').click();
    await page.getByText('the password is wrong').waitFor();
    await page.getByTestId('verify-secret').fill(ROOT.password);
    await page.getByTestId('verify-submit').click();
    expect(await page.getByTestId('revealed-key').textContent()).toBe(key);
    await browser.screenshot('user-security-02-channel-key');
  });

  it('deletes the user for good', async () => {
    await page.goto(`/user/edit/${target.id}`);
    await page.getByTestId('user-hard-delete').click();
    await confirmPopover();
    await page.getByTestId('user-security').waitFor({ state: 'detached' });
    expect((await consoleCall(page, 'GET', `/api/user/${target.id}`)).success).toBe(false);
    expect((await target.call('GET', '/api/user/self')).success).toBe(false);
  });
});
