/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import type { ConsoleBrowser } from './chromium.js';

export interface Credentials {
  username: string;
  password: string;
}

/** Initialises a fresh gateway through its setup API (the wizard itself is covered by the console suite). */
export async function setupRoot(gatewayUrl: string, root: Credentials): Promise<void> {
  const response = await fetch(`${gatewayUrl}/api/setup`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...root, confirmPassword: root.password, SelfUseModeEnabled: false, DemoSiteEnabled: false }),
  });
  const body = (await response.json()) as { success: boolean; message: string };
  if (!body.success) throw new Error(`setup failed: ${body.message}`);
}

/** Logs in through the console's login form, as a user does. */
export async function login(page: Page, user: Credentials): Promise<void> {
  await page.goto('/login');
  await page.locator('input[name="username"]').fill(user.username);
  await page.locator('input[name="password"]').fill(user.password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((url) => url.pathname !== '/login');
}

/** Logs out on a page that runs no console code (so no request of the old session races the logout), then in. */
export async function switchUser(browser: ConsoleBrowser, user: Credentials): Promise<void> {
  await browser.page.goto('/api/status');
  await browser.context.clearCookies();
  await browser.page.evaluate(() => localStorage.removeItem('user'));
  await login(browser.page, user);
}
