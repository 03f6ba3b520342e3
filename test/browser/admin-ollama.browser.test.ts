/// <reference lib="dom" />
// The channel drawer's Ollama panel in Chromium against the built gateway and the native fake's Ollama:
// the server version, a pull with progress, and a delete.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { type FakeNativeUpstream, startFakeNativeUpstream } from '../fake-upstream/native/index.js';
import { OLLAMA_VERSION } from '../fake-upstream/native/ollama.js';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser, screenshotIfFailed } from './support/chromium.js';
import { consoleCall } from './support/console-api.js';
import { login, setupRoot } from './support/console-session.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[browser suite skipped] ${skipReason}`);

const ROOT = { username: 'root', password: 'browser-pass-123' };

describe.skipIf(skipReason !== null)('admin: Ollama model management in Chromium', () => {
  let gateway: GatewayProcess;
  let native: FakeNativeUpstream;
  let browser: ConsoleBrowser;
  let page: Page;

  beforeAll(async () => {
    native = await startFakeNativeUpstream();
    gateway = await startGatewayProcess();
    await setupRoot(gateway.url, ROOT);
    browser = await launchConsoleBrowser(gateway.url);
    page = browser.page;
    page.setDefaultTimeout(15_000);
    await login(page, ROOT);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await native?.close();
  });

  afterEach((context) => screenshotIfFailed(context, browser, 'admin-ollama'));

  it('shows the version, pulls a model with progress and deletes it from the channel drawer', async () => {
    const created = await consoleCall<{ ids: number[] }>(page, 'POST', '/api/channel/', {
      mode: 'single',
      channel: { type: 4, name: 'browser-ollama', key: 'ollama-key', base_url: native.url, models: 'llama3.1' },
    });
    const id = created.data.ids[0]!;
    await page.goto('/channel');
    await page.getByTestId(`channel-edit-${id}`).click();
    const panel = page.getByTestId('ollama-models');
    await panel.waitFor();
    await page.getByText(`Ollama ${OLLAMA_VERSION}`).waitFor();

    await page.getByTestId('ollama-model-name').fill('phi3');
    await page.getByTestId('ollama-pull').click();
    await page.getByText('Model phi3 pulled successfully').waitFor();
    expect(native.requests.some((r) => r.path === '/api/pull' && r.body?.stream === true)).toBe(true);

    await page.getByTestId('ollama-delete').click();
    await page.getByText('模型 phi3 已删除').waitFor();
    expect(native.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/api/delete', body: { model: 'phi3' } });
    await browser.screenshot('admin-ollama-models');
  });
});
