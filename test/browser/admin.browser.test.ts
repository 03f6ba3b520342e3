/// <reference lib="dom" />
// The admin remote in Chromium against the built gateway and a fake OpenAI upstream: channels (drawer,
// inline priority, test, tag mode, batch disable), redemption codes, settings, and a common user kept out.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { startFakeUpstream } from '../fake-upstream/index.js';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser, screenshotIfFailed } from './support/chromium.js';
import { consoleCall } from './support/console-api.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[browser suite skipped] ${skipReason}`);

const ROOT = { username: 'root', password: 'browser-pass-123' };
const MODEL = 'gpt-4o-mini';

interface ChannelRow {
  id: number;
  name: string;
  status: number;
  priority: number;
  tag: string | null;
  response_time: number;
}

describe.skipIf(skipReason !== null)('admin remote in Chromium', () => {
  let gateway: GatewayProcess;
  let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
  let browser: ConsoleBrowser;
  let page: Page;

  const channelsTable = () => page.getByTestId('channels-table');
  const rowOf = (table: Locator, text: string) => table.locator('tr', { hasText: text });
  const channelsNamed = async (keyword: string) =>
    (await consoleCall<{ items: ChannelRow[] }>(page, 'GET', `/api/channel/search?keyword=${encodeURIComponent(keyword)}`)).data.items;
  const numberInput = (testId: string) => page.locator(`input[data-testid="${testId}"], [data-testid="${testId}"] input`).first();
  const storedOptions = async () =>
    Object.fromEntries(
      (await consoleCall<{ key: string; value: string }[]>(page, 'GET', '/api/option/')).data.map((o) => [o.key, o.value]),
    );
  /** Flips a settings section's switch, types a number into one of its fields, saves the section. */
  async function switchTypeAndSave(section: string, switchKey: string, numberKey: string, value: string) {
    await page.getByTestId(`option-${switchKey}`).click();
    const field = numberInput(`option-${numberKey}`);
    await field.fill(value);
    await field.blur();
    await page.getByTestId(`section-${section}-save`).click();
    await page.getByText('保存成功').first().waitFor();
  }

  async function login(username: string, password: string) {
    await page.goto('/login');
    await page.locator('input[name="username"]').fill(username);
    await page.locator('input[name="password"]').fill(password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/token');
  }

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await startGatewayProcess();
    const setup = await fetch(`${gateway.url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password, SelfUseModeEnabled: false, DemoSiteEnabled: false }),
    });
    expect(((await setup.json()) as { success: boolean }).success).toBe(true);
    browser = await launchConsoleBrowser(gateway.url);
    page = browser.page;
    page.setDefaultTimeout(15_000);
    await login(ROOT.username, ROOT.password);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await upstream?.close();
  });

  afterEach((context) => screenshotIfFailed(context, browser, 'admin'));

  it('adds a channel through the drawer and sees it in the list', async () => {
    await page.goto('/channel');
    await page.getByTestId('add-channel').click();
    // The drawer refuses an empty form with the spec's message before calling the server.
    await page.getByTestId('channel-submit').click();
    await page.getByText('请填写渠道名称和渠道密钥！').waitFor();

    await page.getByTestId('channel-name').fill('browser-channel');
    await page.getByTestId('channel-key').fill('sk-browser-channel');
    await page.getByTestId('channel-base-url').fill(`${upstream.url}/`);
    await page.getByTestId('custom-models').fill(`${MODEL}, gpt-4o`);
    await page.getByTestId('custom-models').press('Enter');
    await page.getByTestId('channel-submit').click();
    await page.getByText('已创建 1 个渠道').waitFor();

    await rowOf(channelsTable(), 'browser-channel').waitFor();
    const [created] = await channelsNamed('browser-channel');
    // The trailing slash was stripped and both models were kept.
    const full = await consoleCall<{ base_url: string; models: string }>(page, 'GET', `/api/channel/${created!.id}`);
    expect(full.data).toMatchObject({ base_url: upstream.url, models: `${MODEL},gpt-4o` });
    await browser.screenshot('admin-01-channel-added');
  });

  it('edits the priority inline and tests the channel against the fake upstream', async () => {
    const [channel] = await channelsNamed('browser-channel');
    const priority = numberInput(`channel-priority-${channel!.id}`);
    await priority.fill('7');
    await priority.press('Enter');
    await page.getByText('保存成功').first().waitFor();
    expect((await channelsNamed('browser-channel'))[0]!.priority).toBe(7);

    const response = page.getByTestId(`channel-response-${channel!.id}`);
    expect((await response.textContent())?.trim()).toBe('未测试');
    await page.getByTestId(`channel-test-${channel!.id}`).click();
    await page.getByText('测试成功', { exact: false }).first().waitFor();
    await expect.poll(async () => (await response.textContent())?.trim()).toMatch(/^\d+\.\d{2} 秒$/);
    expect((await channelsNamed('browser-channel'))[0]!.response_time).toBeGreaterThan(0);
    expect(upstream.requests.some((request) => request.path.startsWith('/v1/chat/completions'))).toBe(true);
    await browser.screenshot('admin-02-channel-tested');
  });

  it('groups channels by tag in tag mode and disables a whole tag', async () => {
    for (const name of ['tagged-a', 'tagged-b']) {
      const created = await consoleCall(page, 'POST', '/api/channel/', {
        mode: 'single',
        channel: { type: 1, name, key: `sk-${name}`, base_url: upstream.url, models: MODEL, tag: 'browser-tag' },
      });
      expect(created.success, created.message).toBe(true);
    }
    await page.reload();
    await page.getByTestId('channels-tag-mode').click();
    await channelsTable().getByText('标签：browser-tag（2）').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('tag-mode'))).toBe('true');
    await page.getByTestId('tag-disable-browser-tag').click();
    await page.getByText('标签 browser-tag 的渠道已全部禁用').waitFor();
    expect((await channelsNamed('tagged-')).map((channel) => channel.status)).toEqual([2, 2]);
    await browser.screenshot('admin-03-tag-mode');

    await page.getByTestId('tag-enable-browser-tag').click();
    await page.getByText('标签 browser-tag 的渠道已全部启用').waitFor();
    await page.getByTestId('channels-tag-mode').click();
    await rowOf(channelsTable(), 'tagged-a').waitFor();
  });

  it('disables a batch of selected channels', async () => {
    for (const name of ['tagged-a', 'tagged-b']) await rowOf(channelsTable(), name).locator('.semi-checkbox').first().click();
    await page.getByTestId('channels-batch').getByText('已选 2 个：').waitFor();
    await page.getByTestId('batch-disable').click();
    await page.getByText('已禁用 2 个渠道').waitFor();
    expect((await channelsNamed('tagged-')).map((channel) => channel.status)).toEqual([2, 2]);
    expect((await channelsNamed('browser-channel'))[0]!.status).toBe(1);
    await rowOf(channelsTable(), 'tagged-a').getByText('已禁用').waitFor();
    await browser.screenshot('admin-04-batch-disabled');
  });

  it('edits a channel and a tag through their drawers', async () => {
    const [channel] = await channelsNamed('browser-channel');
    await page.getByTestId(`channel-edit-${channel!.id}`).click();
    const name = page.getByTestId('channel-name');
    await name.waitFor();
    expect(await name.inputValue()).toBe('browser-channel');
    // The key is never sent to the console; an empty key keeps the stored one.
    expect(await page.getByTestId('channel-key').inputValue()).toBe('');
    await name.fill('browser-channel-edited');
    await page.getByTestId('channel-model-mapping').fill('{"gpt-3.5-turbo": ');
    await page.getByTestId('channel-submit').click();
    await page.getByText('模型映射必须是合法的 JSON 格式！').first().waitFor();
    await page.getByTestId('channel-model-mapping').fill('{"gpt-3.5-turbo": "gpt-4o-mini"}');
    await page.getByTestId('channel-submit').click();
    await page.getByText('渠道更新成功！').waitFor();
    const full = await consoleCall<{ name: string; model_mapping: string }>(page, 'GET', `/api/channel/${channel!.id}`);
    expect(full.data).toMatchObject({ name: 'browser-channel-edited', model_mapping: '{"gpt-3.5-turbo":"gpt-4o-mini"}' });

    await page.getByTestId('channels-tag-mode').click();
    await page.getByTestId('tag-edit-browser-tag').click();
    await page.getByTestId('tag-submit').click();
    await page.getByText('没有任何修改').waitFor();
    await page.getByTestId('tag-new-name').fill('renamed-tag');
    await page.getByTestId('tag-submit').click();
    await page.getByText('已更新 2 个渠道').waitFor();
    await channelsTable().getByText('标签：renamed-tag（2）').waitFor();
    expect((await channelsNamed('tagged-')).map((row) => row.tag)).toEqual(['renamed-tag', 'renamed-tag']);
    await page.getByTestId('channels-tag-mode').click();
    await browser.screenshot('admin-04b-drawers');
  });

  it('adds a Vertex AI channel with an express-mode API key, then turns it into a service-account one (vertex_key_type)', async () => {
    await page.goto('/channel');
    await page.getByTestId('add-channel').click();
    await page.getByTestId('channel-type').click();
    await page.locator('.semi-select-option', { hasText: 'Vertex AI (41)' }).click();
    // A service-account key file is the default; the API key choice says it serves Gemini models only.
    await page.getByText('服务账号的 JSON 密钥文件，可用于 Gemini 和 Claude 模型。').waitFor();
    await page.getByText('API Key（快速模式）').click();
    await page.getByText('Vertex AI 快速模式的 Google Cloud API Key，仅可用于 Gemini 模型。').waitFor();
    await page.getByTestId('channel-name').fill('browser-vertex');
    await page.getByTestId('channel-key').fill('AQ.browser-express-key');
    await page.getByTestId('custom-models').fill('gemini-2.5-flash');
    await page.getByTestId('custom-models').press('Enter');
    await page.getByTestId('channel-submit').click();
    await page.getByText('已创建 1 个渠道').waitFor();
    const [created] = await channelsNamed('browser-vertex');
    const settingsOf = async () => (await consoleCall<{ settings: string }>(page, 'GET', `/api/channel/${created!.id}`)).data.settings;
    expect(JSON.parse(await settingsOf())).toEqual({ vertex_key_type: 'api_key' });

    await page.getByTestId(`channel-edit-${created!.id}`).click();
    await page.getByText('Vertex AI 快速模式的 Google Cloud API Key，仅可用于 Gemini 模型。').waitFor();
    await page.getByText('服务账号（JSON）').click();
    await page.getByTestId('channel-submit').click();
    await page.getByText('渠道更新成功！').waitFor();
    expect(await settingsOf()).toBe('');
  });

  it('creates three redemption codes and copies one', async () => {
    await page.goto('/redemption');
    await page.getByTestId('add-redemption').click();
    await page.getByTestId('redemption-name').fill('browser-code');
    const count = numberInput('redemption-count');
    await count.fill('3');
    await page.getByTestId('redemption-submit').click();
    const keys = page.getByTestId('redemption-keys');
    await keys.waitFor();
    const shown = (await keys.locator('code').allInnerTexts()).map((key) => key.trim());
    expect(shown).toHaveLength(3);
    await page.getByTestId('redemption-key-copy').nth(1).click();
    await page.getByText('已复制到剪贴板！').first().waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown[1]);
    await browser.screenshot('admin-05-redemption-keys');
    await page.locator('.semi-modal').getByRole('button', { name: '关闭' }).click();

    const table = page.getByTestId('redemptions-table');
    await expect.poll(async () => table.locator('tr', { hasText: 'browser-code' }).count()).toBe(3);
    const listed = await consoleCall<{ items: { key: string; name: string }[] }>(
      page,
      'GET',
      '/api/redemption/search?keyword=browser-code',
    );
    expect(listed.data.items.map((item) => item.key).sort()).toEqual([...shown].sort());
  });

  it('disables, enables and edits an unused redemption code', async () => {
    const table = page.getByTestId('redemptions-table');
    const row = table.locator('tr', { hasText: 'browser-code' }).first();
    await row.getByRole('button', { name: '禁用' }).click();
    await page.getByText('兑换码已禁用').waitFor();
    await row.getByText('已禁用').waitFor();
    // Only an unused code can be edited (spec 001 §4).
    expect(await row.getByRole('button', { name: '编辑' }).isDisabled()).toBe(true);
    await row.getByRole('button', { name: '启用' }).click();
    await page.getByText('兑换码已启用').waitFor();
    await row.getByText('未使用').waitFor();

    await row.getByRole('button', { name: '编辑' }).click();
    const name = page.getByTestId('redemption-name');
    await expect.poll(async () => name.inputValue()).toBe('browser-code');
    await name.fill('edited-code');
    await page.getByTestId('redemption-submit').click();
    await page.getByText('兑换码更新成功！').waitFor();
    await table.getByText('edited-code').waitFor();
  });

  it('shows the channels page in English', async () => {
    await page.goto('/channel');
    await page.getByTestId('language-menu').click();
    await page.getByTestId('language-en').click();
    await page.getByTestId('add-channel').getByText('Add channel').waitFor();
    await page.getByText('Tag mode', { exact: true }).waitFor();
    await browser.screenshot('admin-06-channels-en');
    await page.getByTestId('language-menu').click();
    await page.getByTestId('language-zh').click();
    await page.getByTestId('add-channel').getByText('添加渠道').waitFor();
  });

  it('changes SystemName in the other tab and sees it in the top bar', async () => {
    await page.goto('/setting?tab=other');
    const name = page.getByTestId('option-SystemName');
    await name.waitFor();
    // Saving what is already stored changes nothing and says so.
    await page.getByTestId('section-site-save').click();
    await page.getByText('你似乎并没有修改什么').waitFor();

    await name.fill('Browser Gateway');
    await page.getByTestId('section-site-save').click();
    await page.getByText('保存成功').first().waitFor();
    await page.locator('header').getByText('Browser Gateway').waitFor();
    const options = await consoleCall<{ key: string; value: string }[]>(page, 'GET', '/api/option/');
    expect(options.data.find((option) => option.key === 'SystemName')?.value).toBe('Browser Gateway');
    await browser.screenshot('admin-08-system-name');
  });

  it("fills the OIDC endpoints from the provider's discovery document, and says so when it cannot be read", async () => {
    const discovery = createServer((req, res) => {
      if (req.url !== '/.well-known/openid-configuration') return void res.writeHead(404).end();
      res.setHeader('content-type', 'application/json');
      const base = 'https://idp.example.test';
      res.end(JSON.stringify({ authorization_endpoint: `${base}/auth`, token_endpoint: `${base}/token`, userinfo_endpoint: `${base}/me` }));
    });
    await new Promise<void>((resolve) => discovery.listen(0, '127.0.0.1', resolve));
    // The provider is on loopback here: the gateway reads the document, and private addresses need this option.
    await consoleCall(page, 'PUT', '/api/option/', { key: 'AllowPrivateOutboundUrls', value: 'true' });
    try {
      const origin = `http://127.0.0.1:${(discovery.address() as AddressInfo).port}`;
      await page.goto('/setting?tab=system');
      await page.getByTestId('option-oidc.well_known').fill(`${origin}/.well-known/openid-configuration`);
      await page.getByText('从 Well-Known URL 获取').click();
      await page.getByText('已从发现文档填入端点，保存后生效').waitFor();
      expect(await page.getByTestId('option-oidc.authorization_endpoint').inputValue()).toBe('https://idp.example.test/auth');
      expect(await page.getByTestId('option-oidc.token_endpoint').inputValue()).toBe('https://idp.example.test/token');
      expect(await page.getByTestId('option-oidc.user_info_endpoint').inputValue()).toBe('https://idp.example.test/me');

      await page.getByTestId('option-oidc.well_known').fill(`${origin}/missing`);
      await page.getByText('从 Well-Known URL 获取').click();
      await page.getByText('获取 OIDC 配置失败，请检查网络状况和 Well-Known URL 是否正确').waitFor();
    } finally {
      await consoleCall(page, 'PUT', '/api/option/', { key: 'AllowPrivateOutboundUrls', value: 'false' });
      await new Promise<void>((resolve) => discovery.close(() => resolve()));
    }
  });

  it('refuses invalid JSON in a ratio field and saves nothing', async () => {
    const before = (await consoleCall<{ key: string; value: string }[]>(page, 'GET', '/api/option/')).data.find(
      (option) => option.key === 'ModelRatio',
    )?.value;
    const saves: string[] = [];
    const onRequest = (request: { method(): string; url(): string }) => {
      if (request.method() === 'PUT' && new URL(request.url()).pathname.startsWith('/api/option')) saves.push(request.url());
    };
    page.on('request', onRequest);
    try {
      await page.goto('/setting?tab=operation');
      const ratio = page.getByTestId('option-ModelRatio');
      await ratio.waitFor();
      await ratio.fill('{"gpt-4o": 2.5,');
      await page.getByTestId('section-ratios').getByText('ModelRatio：不是合法的 JSON 字符串').waitFor();
      await page.getByTestId('section-ratios-save').click();
      await page.locator('.semi-toast-content').getByText('ModelRatio：不是合法的 JSON 字符串').waitFor();
      await browser.screenshot('admin-09-invalid-ratio');
    } finally {
      page.off('request', onRequest);
    }
    expect(saves).toEqual([]);
    const after = (await consoleCall<{ key: string; value: string }[]>(page, 'GET', '/api/option/')).data.find(
      (option) => option.key === 'ModelRatio',
    )?.value;
    expect(after).toBe(before);
  });

  it('saves the Gemini thinking adapter and image models, the audio and cache write ratios, and refuses bad JSON', async () => {
    const KEYS = [
      'gemini.thinking_adapter_enabled',
      'gemini.thinking_adapter_budget_tokens_percentage',
      'gemini.supported_imagine_models',
      'AudioRatio',
      'AudioCompletionRatio',
      'CreateCacheRatio',
      'billing_setting.billing_mode',
      'billing_setting.billing_expr',
      'billing_setting.minimum_charge',
    ];
    const before = await storedOptions();
    for (const key of KEYS) expect(before[key], key).toBeDefined();
    try {
      await page.goto('/setting?tab=models');
      const gemini = page.getByTestId('section-gemini');
      await gemini.getByText('启用 Gemini 思考后缀适配').waitFor();
      await gemini.getByText(/-thinking-<预算>/).waitFor();
      await gemini.getByText('支持图片生成的模型', { exact: true }).waitFor();
      const imagine = page.getByTestId('option-gemini.supported_imagine_models');
      expect(JSON.parse(await imagine.inputValue())).toContain('gemini-2.5-flash-image');
      await imagine.fill('["gemini-2.5-flash-image", "browser-draw"]');
      await switchTypeAndSave('gemini', 'gemini.thinking_adapter_enabled', 'gemini.thinking_adapter_budget_tokens_percentage', '0.75');
      await expect.poll(async () => (await storedOptions())['gemini.thinking_adapter_enabled']).toBe('true');
      expect(Number((await storedOptions())['gemini.thinking_adapter_budget_tokens_percentage'])).toBe(0.75);
      expect(JSON.parse((await storedOptions())['gemini.supported_imagine_models'])).toEqual(['gemini-2.5-flash-image', 'browser-draw']);

      await page.goto('/setting?tab=operation');
      const ratios = page.getByTestId('section-ratios');
      await ratios.getByText('音频倍率', { exact: true }).waitFor();
      const audio = page.getByTestId('option-AudioRatio');
      await audio.fill('{"gpt-4o-realtime-preview": 9,');
      await ratios.getByText('AudioRatio：不是合法的 JSON 字符串').waitFor();
      await page.getByTestId('section-ratios-save').click();
      await page.locator('.semi-toast-content').getByText('AudioRatio：不是合法的 JSON 字符串').waitFor();
      expect((await storedOptions()).AudioRatio).toBe(before.AudioRatio);

      await audio.fill('{"gpt-4o-realtime-preview": 9, "browser-audio": 4}');
      await page.getByTestId('option-AudioCompletionRatio').fill('{"browser-audio": 3}');
      await ratios.getByText('缓存创建倍率', { exact: true }).waitFor();
      await page.getByTestId('option-CreateCacheRatio').fill('{"claude-browser": 2}');
      await page.getByTestId('section-ratios-save').click();
      await expect.poll(async () => JSON.parse((await storedOptions()).AudioCompletionRatio)).toEqual({ 'browser-audio': 3 });
      expect(JSON.parse((await storedOptions()).AudioRatio)).toEqual({ 'gpt-4o-realtime-preview': 9, 'browser-audio': 4 });
      expect(JSON.parse((await storedOptions()).CreateCacheRatio)).toEqual({ 'claude-browser': 2 });

      // What the server stored is what the console shows after a reload.
      await page.reload();
      const reloaded = page.getByTestId('option-AudioCompletionRatio');
      await reloaded.waitFor();
      expect(JSON.parse(await reloaded.inputValue())).toEqual({ 'browser-audio': 3 });
      await browser.screenshot('admin-09b-audio-ratios');

      // A billing expression the server cannot use is refused with the model and the reason; nothing is stored.
      const expressions = page.getByTestId('option-billing_setting.billing_expr');
      await expressions.fill('{"claude-browser": "tier(\\"base\\", p * 3 + c * 15 + q)"}');
      await page.getByTestId('section-ratios-save').click();
      await page
        .locator('.semi-toast-content')
        .getByText(/expression of claude-browser: unknown name q/)
        .waitFor();
      expect((await storedOptions())['billing_setting.billing_expr']).toBe(before['billing_setting.billing_expr']);
      await expressions.fill(
        '{"claude-browser": "len <= 200000 ? tier(\\"standard\\", p * 3 + c * 15) : tier(\\"long\\", p * 6 + c * 22.5)"}',
      );
      await page.getByTestId('option-billing_setting.billing_mode').fill('{"claude-browser": "tiered_expr"}');
      await ratios.getByText('模型最低扣费', { exact: true }).waitFor();
      await page.getByTestId('option-billing_setting.minimum_charge').fill('{"claude-browser": true}');
      await page.getByTestId('section-ratios-save').click();
      await expect
        .poll(async () => JSON.parse((await storedOptions())['billing_setting.billing_mode']))
        .toEqual({ 'claude-browser': 'tiered_expr' });
      // The section saves its changed options one after another: wait for the last of them too.
      await expect
        .poll(async () => JSON.parse((await storedOptions())['billing_setting.minimum_charge']))
        .toEqual({ 'claude-browser': true });
      expect(JSON.parse((await storedOptions())['billing_setting.billing_expr'])['claude-browser']).toMatch(/^len <= 200000/);
    } finally {
      for (const key of KEYS) await consoleCall(page, 'PUT', '/api/option/', { key, value: before[key] });
    }
  });

  it("shows the performance monitor's figures, collects garbage and saves its thresholds (a figure over one turns red)", async () => {
    const KEYS = ['performance_setting.monitor_enabled', 'performance_setting.monitor_memory_threshold'];
    const before = await storedOptions();
    try {
      await page.goto('/setting?tab=operation');
      const section = page.getByTestId('section-performance');
      await section.getByText('系统负载过高时拒绝中继请求').waitFor();
      const memory = page.getByTestId('performance-memory');
      await expect.poll(() => memory.textContent()).toMatch(/^内存 [\d.]+%$/);
      expect(await memory.getAttribute('class')).toContain('green');
      await page.getByTestId('performance-gc').click();
      await page.getByText(/^堆内存 [\d.]+ [KMG]?B → [\d.]+ [KMG]?B$/).waitFor();

      await switchTypeAndSave('performance', 'performance_setting.monitor_enabled', 'performance_setting.monitor_memory_threshold', '1');
      await expect.poll(async () => (await storedOptions())['performance_setting.monitor_memory_threshold']).toBe('1');
      expect((await storedOptions())['performance_setting.monitor_enabled']).toBe('true');
      // Any machine uses more than 1 % of its memory: the figure is now over the line, and a relay call is refused.
      await expect.poll(() => memory.getAttribute('class')).toContain('red');
      const refused = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
      expect(refused.status).toBe(503);
      await browser.screenshot('admin-09c-performance');
    } finally {
      for (const key of KEYS) await consoleCall(page, 'PUT', '/api/option/', { key, value: before[key] });
    }
  });

  it("lists the channel affinity rules and their pins, shows a pinned call's key usage in the log, and clears a rule's pins", async () => {
    const model = 'gpt-affinity-browser';
    const before = await storedOptions();
    const ratios = JSON.parse(before.ModelRatio!) as Record<string, number>;
    await consoleCall(page, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ ...ratios, [model]: 1 }) });
    try {
      const channel = await consoleCall(page, 'POST', '/api/channel/', {
        mode: 'single',
        channel: { type: 1, name: 'affinity-browser', key: 'sk-affinity-browser', models: model, group: 'default', base_url: upstream.url },
      });
      expect(channel.success, channel.message).toBe(true);
      const token = await consoleCall(page, 'POST', '/api/token/', {
        name: 'affinity-browser',
        remain_quota: 0,
        unlimited_quota: true,
        expired_time: -1,
      });
      expect(token.success, token.message).toBe(true);
      const listed = await consoleCall<{ items: { id: number }[] }>(page, 'GET', '/api/token/search?keyword=affinity-browser');
      const key = (await consoleCall<{ key: string }>(page, 'POST', `/api/token/${listed.data.items[0]!.id}/key`)).data.key;
      // Codex's prompt_cache_key on /v1/responses (new-api's default rule); the second call is sent to its pin.
      upstream.script({ path: '/v1/responses', usage: { prompt_tokens: 40, completion_tokens: 4, cached_tokens: 30 }, times: 2 });
      for (let i = 0; i < 2; i++) {
        const answer = await fetch(`${gateway.url}/v1/responses`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, input: 'hi', prompt_cache_key: 'browser-conversation' }),
        });
        expect(answer.status).toBe(200);
      }

      await page.goto('/setting?tab=operation');
      const panel = page.getByTestId('affinity-panel');
      await panel.getByText('codex cli trace', { exact: true }).waitFor();
      await expect.poll(() => page.getByTestId('affinity-rule-pins-0').textContent()).toBe('1 条绑定');
      expect(await page.getByTestId('affinity-rule-1').innerText()).toContain('claude cli trace');
      await browser.screenshot('admin-09d-channel-affinity');

      // The admin's log view: the pinned call names its rule and key, and opens the key's usage.
      await page.goto('/log');
      const pinned = page.locator('[data-testid^="log-details-"]', { hasText: '渠道亲和规则「codex cli trace」' }).first();
      await pinned.waitFor();
      expect(await pinned.innerText()).toContain('键 brow...tion');
      await page.locator('[data-testid^="affinity-usage-"]').first().click();
      const usage = page.getByTestId('affinity-usage');
      await usage.getByText('2 次中 2 次命中缓存').waitFor();
      expect(await usage.innerText()).toContain('75.0%');
      await page.keyboard.press('Escape');

      await page.goto('/setting?tab=operation');
      await expect.poll(() => page.getByTestId('affinity-rule-pins-0').textContent()).toBe('1 条绑定');
      await page.getByTestId('affinity-clear-0').click();
      await page.getByText('已清除 1 条绑定').waitFor();
      await expect.poll(() => page.getByTestId('affinity-rule-pins-0').textContent()).toBe('0 条绑定');

      // A rule added in the editor is saved at once; a bad pattern is refused in the form first.
      await page.getByTestId('affinity-add-rule').click();
      const modal = page.getByTestId('affinity-rule-modal');
      await modal.waitFor();
      await page.getByTestId('affinity-rule-name').fill('browser rule');
      await page.getByTestId('affinity-rule-models').fill('(');
      await page.getByTestId('affinity-rule-source-field-0').fill('metadata.session');
      await page.getByTestId('affinity-rule-save').click();
      await page.getByText('有匹配不是合法的正则表达式').waitFor();
      await page.getByTestId('affinity-rule-models').fill('(?i)^GPT-AFFINITY-');
      await page.getByTestId('affinity-rule-save').click();
      await page.getByTestId('affinity-rule-2').getByText('browser rule', { exact: true }).waitFor();
      const saved = JSON.parse((await storedOptions())['channel_affinity_setting.rules']!) as { name: string; key_sources: unknown }[];
      expect(saved.map((r) => r.name)).toEqual(['codex cli trace', 'claude cli trace', 'browser rule']);
      expect(saved[2]!.key_sources).toEqual([{ type: 'gjson', path: 'metadata.session' }]);
      await browser.screenshot('admin-09e-affinity-rule-added');

      // The editor has closed (its leaving animation would take the click) before the next dialog opens.
      await page.getByTestId('affinity-rule-modal').waitFor({ state: 'detached' });
      await page.getByTestId('affinity-delete-2').click();
      await page.locator('.semi-modal button', { hasText: '删除' }).click();
      await expect.poll(async () => JSON.parse((await storedOptions())['channel_affinity_setting.rules']!).length).toBe(2);
    } finally {
      await consoleCall(page, 'PUT', '/api/option/', { key: 'ModelRatio', value: before.ModelRatio });
      await consoleCall(page, 'PUT', '/api/option/', {
        key: 'channel_affinity_setting.rules',
        value: before['channel_affinity_setting.rules'],
      });
    }
  });

  it('cleans up logs older than the chosen date, one month ago by default', async () => {
    await page.goto('/setting?tab=operation');
    const cleanup = page.getByTestId('log-cleanup');
    await cleanup.waitFor();
    const request = page.waitForRequest((req) => req.method() === 'DELETE' && new URL(req.url()).pathname.startsWith('/api/log'));
    await cleanup.click();
    const target = Number(new URL((await request).url()).searchParams.get('target_timestamp'));
    const monthAgo = Date.now() / 1000 - 30 * 86_400;
    expect(Math.abs(target - monthAgo)).toBeLessThan(3 * 86_400);
    await page.getByText(/已清理 \d+ 条日志/).waitFor();

    // A refusal is shown in the spec's words with the server's reason (the server is made to refuse here).
    await page.route('**/api/log/?*', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ success: false, message: 'disk full' }) }),
    );
    await cleanup.click();
    await page.getByText('日志清理失败: disk full').waitFor();
    await page.unroute('**/api/log/?*');
  });

  it('edits model prices in the visual table: numbers only, unique names', async () => {
    await page.goto('/setting?tab=operation');
    await page.getByText('可视化倍率设置', { exact: true }).click();
    const newModel = page.getByTestId('price-new-model');
    await newModel.fill('gpt-4o');
    await newModel.press('Enter');
    await page.getByText('模型名称已存在').waitFor();

    await newModel.fill('browser-model');
    await newModel.press('Enter');
    const ratio = page.getByTestId('price-ratio-browser-model');
    await ratio.fill('abc');
    await page.getByTestId('price-table-save').click();
    await page.getByText('browser-model: 请输入数字').waitFor();

    await ratio.fill('2.5');
    await page.getByTestId('price-table-save').click();
    await page.getByText('保存成功').first().waitFor();
    const options = await consoleCall<{ key: string; value: string }[]>(page, 'GET', '/api/option/');
    const ratios = JSON.parse(options.data.find((option) => option.key === 'ModelRatio')!.value) as Record<string, number>;
    expect(ratios['browser-model']).toBe(2.5);
    expect(ratios['gpt-4o']).toBeGreaterThan(0);
    await browser.screenshot('admin-11-price-table');
  });

  it('shows the settings tabs in English', async () => {
    await page.goto('/setting?tab=ratelimit');
    await page.getByTestId('language-menu').click();
    await page.getByTestId('language-en').click();
    await page.getByText('Model request rate limit').first().waitFor();
    await page.getByText('Rate limits', { exact: true }).waitFor();
    await page.getByTestId('language-menu').click();
    await page.getByTestId('language-zh').click();
    await page.getByText('模型请求速率限制').first().waitFor();
  });

  it('draws the console with the @semi-bot theme in light and dark mode', async () => {
    await page.goto('/channel');
    await page.getByTestId('add-channel').waitFor();
    const tokens = () =>
      page.evaluate(() => {
        const style = getComputedStyle(document.body);
        const button = getComputedStyle(document.querySelector('[data-testid="add-channel"]')!);
        return {
          brand: style.getPropertyValue('--semi-brand-5').trim(),
          background: style.getPropertyValue('--semi-color-bg-0').trim(),
          button: button.backgroundColor,
        };
      });
    const light = await tokens();
    // The theme package's palette (Semi's own default has no brand tokens and blue-5 = 0,100,250).
    expect(light.brand.replace(/\s/g, '')).toBe('0,119,250');
    expect(light.button).toBe('rgb(0, 119, 250)');
    await page.getByTestId('theme-switch').click();
    expect(await page.evaluate(() => document.body.getAttribute('theme-mode'))).toBe('dark');
    const dark = await tokens();
    expect(dark.background).not.toBe(light.background);
    expect(dark.button).not.toBe(light.button);
    await browser.screenshot('admin-10-dark-channels');
    await page.getByTestId('theme-switch').click();
    expect(await page.evaluate(() => document.body.getAttribute('theme-mode'))).toBeNull();
  });

  it('gives a common user no admin page', async () => {
    const created = await consoleCall(page, 'POST', '/api/user/', { username: 'plain', password: 'plain-pass-123', display_name: 'plain' });
    expect(created.success, created.message).toBe(true);
    await page.evaluate(async () => {
      await fetch('/api/user/logout');
      localStorage.removeItem('user');
    });
    await login('plain', 'plain-pass-123');
    for (const path of ['/channel', '/redemption', '/user', '/setting']) {
      await page.goto(path);
      await page.getByText('您无权访问此页面').waitFor();
      expect(await page.getByTestId('channels-table').count()).toBe(0);
    }
    const refused = await consoleCall(page, 'GET', '/api/channel/');
    expect(refused.success).toBe(false);
    await browser.screenshot('admin-07-common-user');
  });
});

/** Serves a built remote from its own origin with CORS, as a CDN would. */
async function serveRemote(dir: string): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const file = join(dir, normalize(path).replace(/^([/\\])+/, ''));
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'Access-Control-Allow-Origin': '*' });
      return res.end();
    }
    const types: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };
    res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream', 'Access-Control-Allow-Origin': '*' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(skipReason !== null)('admin remote served from another origin', () => {
  let remote: Awaited<ReturnType<typeof serveRemote>>;
  let gateway: GatewayProcess;
  let browser: ConsoleBrowser;

  beforeAll(async () => {
    remote = await serveRemote(resolve('frontends/admin/dist'));
    const previous = process.env.CONSOLE_REMOTE_ADMIN_URL;
    process.env.CONSOLE_REMOTE_ADMIN_URL = `${remote.url}/mf-manifest.json`;
    try {
      gateway = await startGatewayProcess();
    } finally {
      if (previous === undefined) delete process.env.CONSOLE_REMOTE_ADMIN_URL;
      else process.env.CONSOLE_REMOTE_ADMIN_URL = previous;
    }
    await fetch(`${gateway.url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password, SelfUseModeEnabled: false, DemoSiteEnabled: false }),
    });
    browser = await launchConsoleBrowser(gateway.url);
    browser.page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await remote?.close();
  });

  it('loads the channels and settings pages, and their lazy chunks, from the remote origin', async () => {
    const page = browser.page;
    await page.goto('/login');
    await page.locator('input[name="username"]').fill(ROOT.username);
    await page.locator('input[name="password"]').fill(ROOT.password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/token');
    await page.goto('/channel');
    await page
      .getByTestId('add-channel')
      .waitFor()
      .catch((error: Error) => {
        throw new Error(`${error.message}\nremote requests: ${remote.requests.join(', ')}\npage errors: ${browser.errors.join(' | ')}`);
      });
    await page.goto('/setting?tab=other');
    await page.getByTestId('option-SystemName').waitFor();
    expect(remote.requests).toContain('/mf-manifest.json');
    // The entry and at least the two pages' own chunks came from the remote's origin, not the gateway's.
    expect(remote.requests.filter((path) => path.endsWith('.js')).length).toBeGreaterThanOrEqual(3);
    expect(browser.errors).toEqual([]);
  });
});
