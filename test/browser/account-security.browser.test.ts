/// <reference lib="dom" />
// Account security in Chromium against the built gateway: the security section (2FA set up from the
// QR key, backup codes shown once, check-in, passkey added with a virtual authenticator), then the
// login page's 2FA step, its passkey button, its GitHub button (the gateway's PKCE link) and Telegram's return.
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

describe.skipIf(skipReason !== null)('account security in Chromium', () => {
  let gateway: GatewayProcess;
  let browser: ConsoleBrowser;
  let page: Page;
  const TELEGRAM_BOT_TOKEN = '4242:browser-bot-token';
  let secret = '';
  let backupCodes: string[] = [];

  async function login() {
    await page.goto('/login');
    await page.locator('input[name="username"]').fill(ROOT.username);
    await page.locator('input[name="password"]').fill(ROOT.password);
    await page.getByTestId('login-submit').click();
  }

  /** Logs out from a public page, so no console page left behind answers 401 and navigates mid-test. */
  async function logOutOnPublicPage() {
    await page.goto('/about');
    await consoleCall(page, 'GET', '/api/user/logout');
    await page.evaluate(() => localStorage.removeItem('user'));
  }

  beforeAll(async () => {
    gateway = await startGatewayProcess();
    const setup = await fetch(`${gateway.url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password, SelfUseModeEnabled: false, DemoSiteEnabled: false }),
    });
    expect((await setup.json()).success).toBe(true);
    // localhost, not 127.0.0.1: an IP address cannot be a WebAuthn relying party.
    browser = await launchConsoleBrowser(gateway.url.replace('127.0.0.1', 'localhost'));
    page = browser.page;
    page.setDefaultTimeout(20_000);
    await login();
    await page.waitForURL('**/token');
    for (const [key, value] of [
      ['checkin_setting.enabled', 'true'],
      ['passkey.enabled', 'true'],
      ['TelegramBotName', 'gw_browser_bot'],
      ['TelegramBotToken', TELEGRAM_BOT_TOKEN],
      ['TelegramOAuthEnabled', 'true'],
    ]) {
      expect((await consoleCall(page, 'PUT', '/api/option/', { key, value })).success, key).toBe(true);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  afterEach((context) => screenshotIfFailed(context, browser, 'security'));

  it('sets up 2FA from the QR key and shows the backup codes once', async () => {
    await page.goto('/personal');
    await page.getByTestId('security-section').waitFor();
    await page.getByTestId('two-factor-setup').click();
    await page.getByTestId('two-factor-qr').locator('svg[role="img"]').waitFor();
    const keyText = (await page.getByTestId('two-factor-secret').textContent()) ?? '';
    secret = keyText.replace(/^.*?:\s*/, '').trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    backupCodes = ((await page.getByTestId('backup-codes').first().textContent()) ?? '').match(/[A-Z0-9]{4}-[A-Z0-9]{4}/g) ?? [];
    expect(backupCodes).toHaveLength(10);
    await browser.screenshot('security-01-setup');

    await page.getByTestId('two-factor-code').fill(await generate({ secret }));
    await page.getByTestId('two-factor-enable').click();
    // The codes come back once in a dialog after the switch is on.
    await page.getByText('我已保存').click();
    await page.getByText('已开启：登录还需要认证器应用中的验证码。').waitFor();
    await page.getByText('剩余 10 个备用码').waitFor();
    const status = await consoleCall<{ enabled: boolean }>(page, 'GET', '/api/user/2fa/status');
    expect(status.data.enabled).toBe(true);
  });

  it('checks in once from the security section', async () => {
    const before = (await consoleCall<{ quota: number }>(page, 'GET', '/api/user/self')).data.quota;
    await page.getByTestId('checkin-button').click();
    await page.getByText('今日已签到').waitFor();
    expect(await page.getByTestId('checkin-button').isDisabled()).toBe(true);
    const after = (await consoleCall<{ quota: number }>(page, 'GET', '/api/user/self')).data.quota;
    expect(after).toBeGreaterThan(before);
  });

  it('adds a passkey with a virtual authenticator', async () => {
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await page.getByTestId('passkey-add').click();
    await page.getByText('Passkey 已添加').waitFor();
    const passkeys = await consoleCall<{ passkeys: unknown[] }>(page, 'GET', '/api/user/passkey');
    expect(passkeys.data.passkeys).toHaveLength(1);
    await browser.screenshot('security-02-section');
  });

  it('asks for the code at login, refuses a wrong one and lets the right one in', async () => {
    await logOutOnPublicPage();
    await login();
    await page.getByTestId('two-factor-step').waitFor();
    await browser.screenshot('security-03-login-2fa');
    await page.locator('input[name="code"]').fill('000000');
    await page.getByTestId('two-factor-submit').click();
    await page.getByText(/wrong/).first().waitFor();
    expect(page.url()).toContain('/login');

    // The enable step spent this step's code; the next step's code is fresh.
    await page.locator('input[name="code"]').fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await page.getByTestId('two-factor-submit').click();
    await page.waitForURL('**/token');
  });

  it('logs in with the passkey button', async () => {
    await logOutOnPublicPage();
    await page.goto('/login');
    await page.getByTestId('passkey-login').click();
    await page.waitForURL('**/token');
    await page.getByTestId('sidebar').waitFor();
    const self = await consoleCall<{ username: string }>(page, 'GET', '/api/user/self');
    expect(self.data.username).toBe(ROOT.username);
    expect(browser.errors).toEqual([]);
  });

  it('starts GitHub from the gateway’s authorize link: state and an S256 challenge, no verifier', async () => {
    for (const [key, value] of [
      ['ServerAddress', gateway.url],
      ['GitHubClientId', 'gh-browser-id'],
      ['GitHubOAuthEnabled', 'true'],
    ]) {
      expect((await consoleCall(page, 'PUT', '/api/option/', { key, value })).success, key).toBe(true);
    }
    await logOutOnPublicPage();
    // No network here: GitHub's page is answered locally; the test only reads the address the console went to.
    await page.route('https://github.com/**', (route) => route.fulfill({ contentType: 'text/html', body: '<p>GitHub</p>' }));
    await page.goto('/login');
    const leaving = page.waitForRequest((request) => request.url().startsWith('https://github.com/login/oauth/authorize'));
    await page.getByRole('button', { name: /GitHub/ }).click();
    const link = new URL((await leaving).url());
    expect(Object.fromEntries(link.searchParams)).toMatchObject({
      client_id: 'gh-browser-id',
      redirect_uri: `${gateway.url}/oauth/github`,
      code_challenge_method: 'S256',
    });
    expect(link.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(link.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(link.searchParams.has('code_verifier')).toBe(false);
    // Let the navigation to GitHub finish: one still in flight would cut the next test's page load short.
    await page.waitForURL((url) => url.hostname === 'github.com');
  });

  it("logs in with Telegram: the widget returns to the console, which calls the gateway's login and lands on /", async () => {
    // Logged out by the test before; Telegram was enabled with the other options at the start.
    // No network here: Telegram's widget script is answered locally; the test reads where it would send the browser.
    await page.route('https://telegram.org/**', (route) => route.fulfill({ contentType: 'text/javascript', body: '' }));
    await page.goto('/login');
    expect(await page.locator('script[data-telegram-login="gw_browser_bot"]').getAttribute('data-auth-url')).toBe('/oauth/telegram');

    // What Telegram appends to the auth URL: the user's fields signed with SHA-256(bot token) as the HMAC key.
    const fields = { auth_date: String(Math.floor(Date.now() / 1000)), first_name: 'Tele', id: '4242001', username: 'tele_user' };
    const check = Object.entries(fields)
      .map(([key, value]) => `${key}=${value}`)
      .join('\n');
    const hash = createHmac('sha256', createHash('sha256').update(TELEGRAM_BOT_TOKEN).digest()).update(check).digest('hex');
    const call = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/oauth/telegram/login');
    await page.goto(`/oauth/telegram?${new URLSearchParams({ ...fields, hash })}`);
    expect(Object.fromEntries(new URL((await call).url()).searchParams)).toMatchObject({ ...fields, hash, lang: 'zh' });
    await page.waitForURL((url) => url.pathname === '/');
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('user') ?? 'null') as { display_name?: string } | null);
    expect(stored?.display_name).toBe('Tele');
  });
});
