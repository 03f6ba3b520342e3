/// <reference lib="dom" />
// The Other settings tab's version info and update check in Chromium: the gateway reads a fake release feed on
// loopback (UPDATE_CHECK_URL; AllowPrivateOutboundUrls on), the console shows a failure in a toast and a newer
// release in a dialog, its notes as text.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { type FakeReleaseFeed, releaseAnswer, startFakeReleaseFeed } from '../fake-upstream/fake-release-feed.js';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser, screenshotIfFailed } from './support/chromium.js';
import { consoleCall } from './support/console-api.js';
import { login, setupRoot } from './support/console-session.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[browser suite skipped] ${skipReason}`);

const ROOT = { username: 'root', password: 'browser-pass-123' };
const NOTES = '## Highlights\n\n- faster relays\n<img src="x" data-injected="yes">';

describe.skipIf(skipReason !== null)('admin: version info and update check in Chromium', () => {
  let feed: FakeReleaseFeed;
  let gateway: GatewayProcess;
  let browser: ConsoleBrowser;
  let page: Page;

  beforeAll(async () => {
    feed = await startFakeReleaseFeed({ status: 503, body: '{"message":"maintenance"}' });
    gateway = await startGatewayProcess({ VERSION: 'v1.0.0', UPDATE_CHECK_URL: feed.url });
    await setupRoot(gateway.url, ROOT);
    browser = await launchConsoleBrowser(gateway.url);
    page = browser.page;
    page.setDefaultTimeout(15_000);
    await login(page, ROOT);
    // The feed is on loopback: the gateway reads it only with this option on.
    expect((await consoleCall(page, 'PUT', '/api/option/', { key: 'AllowPrivateOutboundUrls', value: 'true' })).success).toBe(true);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await feed?.close();
  });

  afterEach((context) => screenshotIfFailed(context, browser, 'admin-update'));

  it('shows the running version, and the reason when the feed cannot be read', async () => {
    await page.goto('/setting?tab=other');
    const section = page.getByTestId('section-version');
    await section.getByText('v1.0.0').waitFor();
    await section.getByText('当前版本').waitFor();
    await page.getByTestId('check-update').click();
    await page.getByText('检查更新失败: release feed unreadable: HTTP 503').waitFor();
    expect(feed.requests).toHaveLength(1);
  });

  it('opens a dialog with the newer release: its name, notes as text and a link to its page', async () => {
    feed.answer = releaseAnswer('v2.0.0', { name: 'Gateway 2.0', body: NOTES });
    await page.goto('/setting?tab=other');
    await page.getByTestId('check-update').click();
    const dialog = page.locator('.semi-modal-content');
    await dialog.getByText('发现新版本：v2.0.0').waitFor();
    await dialog.getByText('Gateway 2.0').waitFor();
    // The notes are text: the feed's HTML is shown, never made into elements.
    expect(await page.getByTestId('update-notes').textContent()).toBe(NOTES);
    expect(await page.locator('[data-injected]').count()).toBe(0);
    const link = page.getByTestId('update-release-link').locator('a').or(page.locator('a[data-testid="update-release-link"]')).first();
    expect(await link.getAttribute('href')).toBe('https://github.com/acme/gateway/releases/tag/v2.0.0');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    await browser.screenshot('admin-update-dialog');
    await dialog.getByRole('button', { name: '关闭' }).click();
    await page.getByTestId('update-dialog').waitFor({ state: 'detached' });
  });
});
