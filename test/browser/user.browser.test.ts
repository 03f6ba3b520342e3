/// <reference lib="dom" />
// The user remote in Chromium against the built gateway and a fake OpenAI upstream: a user redeems a
// code in the wallet, makes relay calls with the official openai client, finds them in /log (model,
// token, cost, filters, stats bar) and on the /detail dashboard, changes settings, the password, and
// deletes the account; an admin sees the columns a user does not. zh first, then en.
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeUpstream } from '../fake-upstream/index.js';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser, screenshotIfFailed } from './support/chromium.js';
import { consoleCall } from './support/console-api.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[browser suite skipped] ${skipReason}`);

const ROOT = { username: 'root', password: 'browser-pass-123' };
const ALICE = { username: 'alice', password: 'alice-pass-123', newPassword: 'alice-new-pass-456' };
const QUOTA_PER_UNIT = 500_000;
const CODE_QUOTA = 5 * QUOTA_PER_UNIT;
const PAY_ADDRESS = 'https://pay.example.test/';

/** The kit's renderQuota for the default site: dollars, at least 6 decimals for the logs' cost column. */
const dollars = (quota: number, digits = 2) => {
  const amount = quota / QUOTA_PER_UNIT;
  return `$${Number(amount.toFixed(Math.max(digits, amount !== 0 && Math.abs(amount) < 0.01 ? 6 : digits)))}`;
};

/** The page renders after its requests on a shared, busy machine: wait as long as any locator would. */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 15_000, interval: 100 });

interface LogItem {
  model_name: string;
  token_name: string;
  quota: number;
  type: number;
}

describe.skipIf(skipReason !== null)('user remote in Chromium', () => {
  let gateway: GatewayProcess;
  let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
  let browser: ConsoleBrowser;
  let page: Page;
  let redemptionCode = '';
  let aliceKey = '';

  const login = async (username: string, password: string) => {
    await page.goto('/login');
    await page.locator('input[name="username"]').fill(username);
    await page.locator('input[name="password"]').fill(password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/token');
  };
  const logout = async () => {
    await consoleCall(page, 'GET', '/api/user/logout');
    await page.evaluate(() => localStorage.removeItem('user'));
  };
  const toast = (text: string) => page.locator('.semi-toast-content').getByText(text, { exact: false }).first();
  /** What a user has spent so far, from the admin's log list. */
  const ownLogsOf = async (username: string) =>
    (await consoleCall<{ items: LogItem[] }>(page, 'GET', `/api/log/?p=1&page_size=100&type=2&username=${username}`)).data.items.reduce(
      (sum, row) => sum + row.quota,
      0,
    );
  const ownLogs = async (query = '') =>
    (await consoleCall<{ items: LogItem[] }>(page, 'GET', `/api/log/self/?p=1&page_size=100${query}`)).data.items;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    // Upstream failures are logged as error rows (type 5), shown in /log.
    gateway = await startGatewayProcess({ ERROR_LOG_ENABLED: 'true' });
    const setup = await fetch(`${gateway.url}/api/setup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password, SelfUseModeEnabled: false, DemoSiteEnabled: false }),
    });
    expect(((await setup.json()) as { success: boolean }).success).toBe(true);
    browser = await launchConsoleBrowser(gateway.url);
    page = browser.page;
    page.setDefaultTimeout(15_000);

    await login(ROOT.username, ROOT.password);
    const channel = await consoleCall(page, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        type: 1,
        name: 'fake upstream',
        key: 'sk-upstream-test',
        base_url: upstream.url,
        models: 'gpt-4o-mini,gpt-4o',
        group: 'default',
        // gpt-4o calls reach the upstream under a dated name: the log shows both.
        model_mapping: '{"gpt-4o":"gpt-4o-2024-08-06"}',
      },
    });
    expect(channel.success, channel.message).toBe(true);
    expect(
      (await consoleCall(page, 'POST', '/api/user/', { username: ALICE.username, password: ALICE.password, display_name: 'Alice' }))
        .success,
    ).toBe(true);
    const codes = await consoleCall<string[]>(page, 'POST', '/api/redemption/', { name: 'browser', quota: CODE_QUOTA, count: 1 });
    expect(codes.success, codes.message).toBe(true);
    redemptionCode = codes.data[0]!;
    const options: [string, string][] = [
      // Webhooks to loopback are refused unless the operator allows private addresses (the https rule still holds).
      ['AllowPrivateOutboundUrls', 'true'],
      // Online top-up through an epay gateway the browser never reaches: the test catches the posted form.
      ['ServerAddress', gateway.url],
      ['PayAddress', PAY_ADDRESS],
      ['EpayId', '1001'],
      ['EpayKey', 'epay-browser-key'],
      ['Price', '7.3'],
      ['MinTopUp', '2'],
    ];
    for (const [key, value] of options) {
      const saved = await consoleCall(page, 'PUT', '/api/option/', { key, value });
      expect(saved.success, `${key}: ${saved.message}`).toBe(true);
    }
    await logout();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await upstream?.close();
  });

  afterEach((context) => screenshotIfFailed(context, browser, 'user'));

  it('redeeming a code in the wallet raises the balance shown', async () => {
    await login(ALICE.username, ALICE.password);
    await page.goto('/topup');
    await poll(() => page.getByTestId('balance-current').textContent()).toBe('$0');

    await page.getByTestId('redeem-submit').click();
    await toast('请输入兑换码').waitFor();
    await page.getByTestId('redeem-code').fill('no-such-code');
    await page.getByTestId('redeem-submit').click();
    await toast('invalid redemption code').waitFor();

    await page.getByTestId('redeem-code').fill(redemptionCode);
    await page.getByTestId('redeem-submit').click();
    await page
      .getByTestId('redeem-result')
      .getByText(`兑换成功，到账 ${dollars(CODE_QUOTA)}`)
      .waitFor();
    await poll(() => page.getByTestId('balance-current').textContent()).toBe(dollars(CODE_QUOTA));
    await browser.screenshot('user-01-wallet');
  });

  it('online top-up shows the server price and posts the signed form to the payment gateway', async () => {
    await page.goto('/topup');
    // The minimum (2) is preselected; the server prices it at 2 × 7.3.
    await page.getByTestId('topup-price').getByText('实付金额：14.60').waitFor();
    await page.getByTestId('amount-preset-20').click();
    await page.getByTestId('topup-price').getByText('实付金额：146.00').waitFor();

    let posted: { method: string; url: string; body: URLSearchParams } | null = null;
    await page.route(`${PAY_ADDRESS}**`, async (route) => {
      const request = route.request();
      posted = { method: request.method(), url: request.url(), body: new URLSearchParams(request.postData() ?? '') };
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>payment gateway</p>' });
    });
    await page.getByTestId('pay-zfb').click();
    await page.locator('.semi-modal-footer').getByText('支付', { exact: true }).click();
    await page.getByText('payment gateway').waitFor();
    await page.unroute(`${PAY_ADDRESS}**`);
    const form = posted as { method: string; url: string; body: URLSearchParams } | null;
    expect(form?.method).toBe('POST');
    expect(form?.url.startsWith(PAY_ADDRESS)).toBe(true);
    expect(form?.body.get('money')).toBe('146.00');
    expect(form?.body.get('type')).toBe('zfb');
    expect(form?.body.get('sign')).toMatch(/^[0-9a-f]{32}$/);
    const tradeNo = form?.body.get('out_trade_no') ?? '';
    expect(tradeNo).not.toBe('');

    // Back in the wallet, the order waits for the gateway's callback.
    await page.goto('/topup');
    const row = page.getByTestId('topup-history').locator('tr', { hasText: tradeNo });
    await row.getByText('待支付').waitFor();
    await row.getByText('支付宝', { exact: true }).waitFor();
    await browser.screenshot('user-01-wallet-online');
  });

  it('shows relay calls in /log with model, token and cost; filters by model and time; the stats bar adds up', async () => {
    const created = await consoleCall(page, 'POST', '/api/token/', {
      name: 'browser-key',
      remain_quota: 0,
      unlimited_quota: true,
      expired_time: -1,
    });
    expect(created.success, created.message).toBe(true);
    const tokens = await consoleCall<{ items: { id: number; name: string }[] }>(page, 'GET', '/api/token/?p=1&size=10');
    const tokenId = tokens.data.items.find((token) => token.name === 'browser-key')!.id;
    aliceKey = (await consoleCall<{ key: string }>(page, 'POST', `/api/token/${tokenId}/key`)).data.key;

    const client = new OpenAI({ apiKey: aliceKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    for (const model of ['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o']) {
      const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });
      expect(answer.choices[0]?.message.content).toBeTruthy();
    }
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'stream please' }],
    });
    for await (const _chunk of stream) {
      // Drain the stream so the call completes and is logged.
    }
    // Consume rows are written in small batches: wait until all four are readable.
    await expect.poll(async () => (await ownLogs('&type=2')).length, { timeout: 10_000 }).toBe(4);
    const consumed = await ownLogs('&type=2');
    const totalQuota = consumed.reduce((sum, row) => sum + row.quota, 0);
    expect(totalQuota).toBeGreaterThan(0);

    await page.goto('/log');
    const table = page.getByTestId('logs-table');
    await poll(() => table.getByTestId('log-model').count()).toBe(4);
    expect(await table.getByTestId('log-model').allInnerTexts()).toEqual(consumed.map((row) => row.model_name));
    expect(new Set(await table.getByTestId('log-token').allInnerTexts())).toEqual(new Set(['browser-key']));
    // Newest first: the four calls, then the top-up row with the credited amount.
    expect(await table.getByTestId('log-cost').allInnerTexts()).toEqual([
      ...consumed.map((row) => dollars(row.quota, 6)),
      dollars(CODE_QUOTA, 6),
    ]);
    // A user sees neither the channel nor the user column.
    const headers = await table.locator('thead th').allInnerTexts();
    expect(headers).toEqual(expect.arrayContaining(['时间', '令牌', '模型', '花费', '详情']));
    expect(headers).not.toContain('渠道');
    expect(headers).not.toContain('用户');
    await page
      .getByTestId('logs-stat-quota')
      .getByText(`消耗额度: ${dollars(totalQuota)}`)
      .waitFor();
    expect(await page.getByTestId('logs-stat-rpm').textContent()).toBe('RPM: 4');
    // The details popover reads the ratios the relay recorded.
    await table.locator('[data-testid^="log-details-"]').first().hover();
    await page.locator('[data-testid^="log-details-popover-"]').getByText('模型倍率', { exact: false }).waitFor();
    await browser.screenshot('user-02-logs');

    // Filter by model: only the gpt-4o call, and the stats bar follows the filter.
    const gpt4o = consumed.filter((row) => row.model_name === 'gpt-4o');
    await page.getByTestId('logs-model-name').fill('gpt-4o');
    await page.getByTestId('logs-query').click();
    await poll(() => table.getByTestId('log-model').allInnerTexts()).toEqual(['gpt-4o']);
    expect(await table.getByTestId('log-upstream-model').allInnerTexts()).toEqual(['→ gpt-4o-2024-08-06']);
    await page
      .getByTestId('logs-stat-quota')
      .getByText(`消耗额度: ${dollars(gpt4o[0]!.quota)}`)
      .waitFor();

    // Filter by time: a window that ended yesterday holds none of today's calls.
    const inputs = page.getByTestId('logs-filters').locator('.semi-datepicker input');
    const yesterday = new Date(Date.now() - 2 * 86_400_000);
    const day = `${yesterday.getFullYear()}-${String(yesterday.getMonth() + 1).padStart(2, '0')}-${String(yesterday.getDate()).padStart(2, '0')}`;
    await inputs.nth(0).fill(`${day} 00:00:00`);
    await inputs.nth(1).fill(`${day} 23:59:59`);
    await page.keyboard.press('Enter');
    await page.getByTestId('logs-query').click();
    await poll(() => table.getByTestId('log-model').count()).toBe(0);
    await page
      .getByTestId('logs-stat-quota')
      .getByText(`消耗额度: ${dollars(0)}`)
      .waitFor();
    await browser.screenshot('user-02-logs-filtered');

    // ERROR_LOG_ENABLED: a failed upstream call is an error row, offered by the type filter, its message in the details.
    upstream.script({ status: 500, errorMessage: 'browser provider down', times: 1 });
    await expect(client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'fail' }] })).rejects.toThrow();
    await expect.poll(async () => (await ownLogs('&type=5')).length, { timeout: 10_000 }).toBe(1);
    await page.goto('/log');
    await poll(() => table.getByTestId('log-model').count()).toBe(5);
    // Newest first: the error row, labelled 错误, with the upstream's message in its details and no cost.
    expect(await table.locator('tbody tr').first().innerText()).toContain('错误');
    expect(await table.locator('tbody').getByText('错误', { exact: true }).count()).toBe(1);
    expect(await table.locator('[data-testid^="log-details-"]').first().innerText()).toContain('status_code=500, browser provider down');
    await page.getByTestId('logs-filters').locator('.semi-select').first().click();
    await page.locator('.semi-select-option', { hasText: '错误' }).waitFor();
    await page.keyboard.press('Escape');
  });

  it('remembers the page size and the column choice', async () => {
    await page.evaluate(() => localStorage.setItem('page-size', '20'));
    const listed = page.waitForRequest((request) => request.url().includes('/api/log/self/'));
    await page.goto('/log');
    expect(new URL((await listed).url()).searchParams.get('page_size')).toBe('20');
    await page.getByTestId('logs-columns-button').click();
    await page.getByTestId('logs-column-details').click();
    await page.locator('.semi-modal-footer').getByText('保存', { exact: true }).click();
    await page.reload();
    const headers = await page.getByTestId('logs-table').locator('thead th').allInnerTexts();
    expect(headers).not.toContain('详情');
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem('logs-table-columns') ?? '{}').details)).toBe(false);
    await page.getByTestId('logs-columns-button').click();
    await page.getByTestId('logs-column-details').click();
    await page.locator('.semi-modal-footer').getByText('保存', { exact: true }).click();
  });

  it('draws the dashboard from the real quota_data, with the chart library fetched only for it', async () => {
    const scripts = () =>
      page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((entry) => entry.name)
          .filter((name) => name.endsWith('.js')),
      );
    const holdsECharts = async (urls: string[]) => {
      for (const url of urls) if (/echarts/i.test(await (await fetch(url)).text())) return true;
      return false;
    };
    await page.goto('/log');
    await page.getByTestId('logs-table').getByTestId('log-model').first().waitFor();
    const before = await scripts();
    expect(await holdsECharts(before)).toBe(false);
    // In-app navigation: whatever the dashboard needs beyond the logs page is fetched now.
    await page.getByTestId('sidebar').getByText('数据看板', { exact: true }).click();
    await page.waitForURL('**/detail');
    const chart = page.getByTestId('chart-quota');
    await chart.locator('canvas').waitFor();
    // ECharts' aria option describes the drawn series in the chart's label.
    await poll(() => chart.getAttribute('aria-label')).toContain('gpt-4o-mini');
    const top = page.getByTestId('dashboard-top-models');
    await top.getByText('gpt-4o-mini', { exact: true }).waitFor();
    await top.getByText('gpt-4o', { exact: true }).waitFor();
    const data = await consoleCall<{ count: number; quota: number }[]>(
      page,
      'GET',
      `/api/data/self?start_timestamp=${Math.floor(Date.now() / 1000) - 86_400}&end_timestamp=${Math.floor(Date.now() / 1000) + 3600}`,
    );
    expect(data.data.reduce((sum, row) => sum + row.count, 0)).toBe(4);
    expect(await page.getByTestId('dashboard-card-range-count').textContent()).toBe('4');
    expect(await holdsECharts((await scripts()).filter((url) => !before.includes(url)))).toBe(true);
    await page.getByTestId('granularity-day').click();
    await chart.locator('canvas').waitFor();
    await browser.screenshot('user-03-dashboard');
  });

  it('an admin sees the channel and user columns and the user behind a row', async () => {
    await logout();
    await login(ROOT.username, ROOT.password);
    await page.goto('/log');
    const table = page.getByTestId('logs-table');
    await poll(() => table.getByTestId('log-model').count()).toBeGreaterThanOrEqual(4);
    const headers = await table.locator('thead th').allInnerTexts();
    expect(headers).toEqual(expect.arrayContaining(['渠道', '用户', '重试']));
    expect(new Set(await table.getByTestId('log-channel').allInnerTexts())).toEqual(new Set(['1']));
    await table.getByTestId('log-username').first().click();
    await poll(() => page.getByTestId('log-user-info').textContent()).toContain(`${ALICE.username}`);
    expect(await page.getByTestId('log-user-info').textContent()).toContain(dollars(CODE_QUOTA - (await ownLogsOf(ALICE.username))));
    await page.locator('.semi-modal').getByRole('button', { name: 'close', exact: false }).click();
    await page.locator('.semi-modal').getByRole('button', { name: 'close', exact: false }).waitFor({ state: 'hidden' });
    await browser.screenshot('user-04-admin-logs');
    // The admin's dashboard covers every user; a username narrows it to that user.
    await page.goto('/detail');
    await page.getByTestId('dashboard-top-models').getByText('gpt-4o-mini', { exact: true }).waitFor();
    await page.getByTestId('dashboard-username').fill('root');
    await page.getByTestId('dashboard-query').click();
    await page.getByTestId('dashboard-empty').waitFor();
    await page.getByTestId('dashboard-username').fill(ALICE.username);
    await page.getByTestId('dashboard-query').click();
    await page.getByTestId('dashboard-top-models').getByText('gpt-4o', { exact: true }).waitFor();
    // Grouping by day asks the server for its daily sums (new-api's default_time) instead of hourly rows.
    const perDay = page.waitForResponse((res) => res.url().includes('/api/data/?') && res.url().includes('default_time=day'));
    await page.getByTestId('granularity-day').click();
    const daily = (await (await perDay).json()) as { data: { model_name: string; count: number }[] };
    expect(daily.data.length).toBeGreaterThan(0);
    await page.getByTestId('dashboard-top-models').getByText('gpt-4o', { exact: true }).waitFor();
    await logout();
    await login(ALICE.username, ALICE.password);
  });

  it('personal settings in English: the webhook must be https, saving works, the password changes', async () => {
    await page.goto('/personal');
    await page.getByTestId('personal-language').getByText('English', { exact: true }).click();
    await page.getByText('Balance warning threshold').waitFor();
    await page.getByTestId('personal-models').getByText('gpt-4o-mini', { exact: true }).waitFor();
    expect(await page.getByTestId('invite-link').inputValue()).toMatch(/\/register\?aff=\w+$/);

    await page.getByTestId('personal-notify').getByText('Webhook', { exact: true }).click();
    await page.getByTestId('notify-webhook-url').fill('http://hooks.example.test/notify');
    await page.getByTestId('notify-save').click();
    await toast('webhook URL must start with https://').waitFor();
    await page.getByTestId('notify-webhook-url').fill('https://127.0.0.1/notify');
    await page.getByTestId('notify-webhook-secret').fill('s3cret');
    await page.getByTestId('notify-save').click();
    await toast('settings saved').waitFor();
    const self = await consoleCall<{ setting: string }>(page, 'GET', '/api/user/self');
    expect(JSON.parse(self.data.setting)).toMatchObject({
      notify_type: 'webhook',
      webhook_url: 'https://127.0.0.1/notify',
      has_webhook_secret: true,
    });
    expect(self.data.setting).not.toContain('s3cret');
    // The saved secret is never shown back; the field stays empty and saving again keeps it.
    await page.reload();
    await page.getByTestId('notify-webhook-secret').waitFor();
    expect(await page.getByTestId('notify-webhook-secret').inputValue()).toBe('');
    await page.getByTestId('notify-save').click();
    await toast('settings saved').waitFor();
    expect(JSON.parse((await consoleCall<{ setting: string }>(page, 'GET', '/api/user/self')).data.setting).has_webhook_secret).toBe(true);
    await browser.screenshot('user-05-personal-en');

    await page.getByTestId('access-token-reset').click();
    await toast('token reset and copied').waitFor();
    const accessToken = (await page.getByTestId('access-token').textContent()) ?? '';
    expect(accessToken.length).toBeGreaterThan(16);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(accessToken);

    await page.getByTestId('password-open').click();
    await page.getByTestId('password-original').fill(ALICE.password);
    await page.getByTestId('password-next').fill(ALICE.newPassword);
    await page.getByTestId('password-confirm').fill('something-else-1');
    await page.locator('.semi-modal-footer').getByText('Submit', { exact: true }).click();
    await toast('the two passwords differ').waitFor();
    await page.getByTestId('password-confirm').fill(ALICE.newPassword);
    await page.locator('.semi-modal-footer').getByText('Submit', { exact: true }).click();
    await toast('password changed').waitFor();

    await logout();
    await login(ALICE.username, ALICE.newPassword);
  });

  it('deleting the account asks for the username and signs out', async () => {
    await page.goto('/personal');
    await page.getByTestId('delete-open').click();
    await page.getByTestId('delete-confirm-name').fill('not-alice');
    await page.locator('.semi-modal-footer').getByText('Delete', { exact: true }).click();
    await toast('please enter your account name to confirm deletion').waitFor();
    await page.getByTestId('delete-confirm-name').fill(ALICE.username);
    await page.locator('.semi-modal-footer').getByText('Delete', { exact: true }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
    // The old key stops working with the account.
    const client = new OpenAI({ apiKey: aliceKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow();
  });

  it('fits a phone screen: no page scrolls sideways (wide tables scroll inside themselves)', async () => {
    await login(ROOT.username, ROOT.password);
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const [path, ready] of [
        ['/log', 'logs-table'],
        ['/topup', 'topup-history'],
        ['/personal', 'personal-notify'],
        ['/detail', 'dashboard-top-models'],
      ] as const) {
        await page.goto(path);
        await page.getByTestId(ready).waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, path).toBeLessThanOrEqual(1);
        await browser.screenshot(`user-06-mobile${path.replace('/', '-')}`);
      }
    } finally {
      await page.setViewportSize({ width: 1366, height: 860 });
    }
  });
});
