/// <reference lib="dom" />
// The chat pages of the playground remote in Chromium: /chat/:id frames the admin's chat client with the
// user's first enabled key (or offers to open a desktop app), /chat2link leaves for the client, and a user
// without an enabled token is sent to /token.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser, screenshotIfFailed } from './support/chromium.js';
import { consoleCall } from './support/console-api.js';
import { login, setupRoot, switchUser } from './support/console-session.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[browser suite skipped] ${skipReason}`);

const ROOT = { username: 'root', password: 'browser-pass-123' };
const BOB = { username: 'bob', password: 'bob-pass-1234' };

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

describe.skipIf(skipReason !== null)('chat pages in Chromium', () => {
  let gateway: GatewayProcess;
  let client: Awaited<ReturnType<typeof startChatClient>>;
  let browser: ConsoleBrowser;
  let page: Page;

  beforeAll(async () => {
    client = await startChatClient();
    gateway = await startGatewayProcess();
    browser = await launchConsoleBrowser(gateway.url);
    page = browser.page;
    page.setDefaultTimeout(15_000);
    await setupRoot(gateway.url, ROOT);
    await login(page, ROOT);
    const created = await consoleCall(page, 'POST', '/api/user/', { ...BOB, display_name: 'Bob' });
    expect(created.success, created.message).toBe(true);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await new Promise((resolve) => client?.server.close(resolve));
  });

  afterEach((context) => screenshotIfFailed(context, browser, 'chat'));

  it('sends a user with no enabled token from /chat/0 to /token after 1.5 s', async () => {
    await switchUser(browser, BOB);
    await page.goto('/chat/0');
    const shownAt = Date.now();
    await page.locator('.semi-toast-content').getByText('当前没有可用的启用令牌，请确认是否有令牌处于启用状态！').waitFor();
    await page.waitForURL('**/token');
    expect(Date.now() - shownAt).toBeGreaterThanOrEqual(1_200);
    expect(await page.getByTestId('chat-frame').count()).toBe(0);
    await switchUser(browser, ROOT);
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

    // No clients configured at all: the user is told to ask the administrator.
    await page.goto('/api/status');
    expect((await consoleCall(page, 'PUT', '/api/option/', { key: 'Chats', value: '[]' })).success).toBe(true);
    await page.goto('/chat');
    await page.getByText('请联系管理员配置聊天链接').waitFor();
    // The pages re-read the status first, so a client removed since the last visit is not opened from the stored copy.
    await page.goto('/chat2link');
    await page.getByText('请联系管理员配置聊天链接').waitFor();
    expect(new URL(page.url()).origin).toBe(gateway.url);
    expect(browser.errors).toEqual([]);
  });
});
