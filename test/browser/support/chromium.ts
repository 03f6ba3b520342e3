import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const SCREENSHOT_DIR = 'test-results/screenshots';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** Only a developer machine without Chromium may skip; CI must have it. */
export function chromiumSkipReason(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  if (process.env.CI) return null;
  return `${CHROMIUM_PATH} is missing: install it with apt-get install chromium to run the browser suite`;
}

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** Page errors seen so far (uncaught exceptions in the console). */
  errors: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * For afterEach: when the test failed, a screenshot of the page as the failure left it, named after the suite
 * and the test. Returns whether it failed, for suites that then reset their shared page.
 */
export async function screenshotIfFailed(
  context: { task: { name: string; result?: { state?: string } } },
  browser: ConsoleBrowser | undefined,
  suite: string,
): Promise<boolean> {
  if (context.task.result?.state !== 'fail') return false;
  await browser?.screenshot(`failed-${suite}-${context.task.name.replace(/\W+/g, '-')}`);
  return true;
}

export async function launchConsoleBrowser(baseURL: string): Promise<ConsoleBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    baseURL,
    viewport: { width: 1366, height: 860 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return {
    context,
    page,
    errors,
    screenshot: async (name) => {
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
