/// <reference lib="dom" />
// The drawing log (/midjourney) and task log (/task) pages in Chromium, against the built gateway with a
// fake Midjourney-proxy and a fake Suno server: tasks are submitted through the relay with a real token,
// polled by the gateway itself, then read in the console as root and as a regular user.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeMidjourney, type FakeMidjourney } from '../fake-upstream/fake-midjourney.js';
import { startFakeSuno, type FakeSuno } from '../fake-upstream/fake-suno.js';
import { chromiumSkipReason, launchConsoleBrowser, type ConsoleBrowser, screenshotIfFailed } from './support/chromium.js';
import { consoleCall } from './support/console-api.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';

const skipReason = chromiumSkipReason();
if (skipReason) console.warn(`[task browser suite skipped] ${skipReason}`);

const ROOT = { username: 'root', password: 'browser-pass-123' };
// Random-looking, as real secrets are: task answers are cleared of any 8-character run of a channel's key.
const MJ_SECRET = 'mj-Q8vT3kLp2WxZ7nRd';
const SUNO_KEY = 'sk-suno-H4jN9cVb6YtE1qMs';

async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(skipReason !== null)('drawing and task logs in Chromium', () => {
  let gateway: GatewayProcess;
  let mj: FakeMidjourney;
  let suno: FakeSuno;
  let browser: ConsoleBrowser;
  let page: Page;
  let key: string;
  const ids = { drawnOk: '', drawnFailed: '', songOk: '', songFailed: '' };

  /** Semi puts data-testid on the <input> itself or on its wrapper, depending on the component. */
  const fill = async (testId: string, value: string) => {
    const target = page.getByTestId(testId);
    const input = (await target.evaluate((el) => el.tagName)) === 'INPUT' ? target : target.locator('input');
    await input.fill(value);
  };

  const relay = async (path: string, body: unknown) => {
    const res = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    return (await res.json()) as any;
  };

  beforeAll(async () => {
    mj = await startFakeMidjourney(MJ_SECRET);
    suno = await startFakeSuno(SUNO_KEY);
    // The gateway polls on its own, every second, as it would every 15 s in production.
    process.env.TASK_POLL_INTERVAL = '1';
    gateway = await startGatewayProcess();
    delete process.env.TASK_POLL_INTERVAL;
    browser = await launchConsoleBrowser(gateway.url);
    page = browser.page;
    page.setDefaultTimeout(15_000);

    // Set up and log in as root through the UI's own API, then seed channels, a token and tasks.
    const setup = await fetch(`${gateway.url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password, SelfUseModeEnabled: false, DemoSiteEnabled: false }),
    });
    expect(((await setup.json()) as any).success).toBe(true);
    await page.goto('/login');
    await page.locator('input[name="username"]').fill(ROOT.username);
    await page.locator('input[name="password"]').fill(ROOT.password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/token');
    for (const channel of [
      { type: 2, name: 'mj-fake', key: MJ_SECRET, base_url: mj.url, models: 'mj_imagine', group: 'default' },
      { type: 36, name: 'suno-fake', key: SUNO_KEY, base_url: suno.url, models: 'suno_music,suno_lyrics', group: 'default' },
    ]) {
      expect((await consoleCall(page, 'POST', '/api/channel/', { mode: 'single', channel })).success).toBe(true);
    }
    expect(
      (await consoleCall(page, 'POST', '/api/token/', { name: 'tasks', remain_quota: 0, unlimited_quota: true, expired_time: -1 })).success,
    ).toBe(true);
    const tokens = await consoleCall<{ items: { id: number }[] }>(page, 'GET', '/api/token/?p=1&size=10');
    key = (await consoleCall<{ key: string }>(page, 'POST', `/api/token/${tokens.data.items[0]!.id}/key`)).data.key;
    await waitUntil(
      async () => (await relay('/mj/submit/imagine', { prompt: 'probe' })).code === 1,
      'the routing table to see the new channels',
    );

    ids.drawnOk = (await relay('/mj/submit/imagine', { prompt: 'a lighthouse at dusk' })).result;
    ids.drawnFailed = (await relay('/mj/submit/imagine', { prompt: 'a forbidden thing' })).result;
    mj.update(ids.drawnOk, {
      status: 'SUCCESS',
      progress: '100%',
      imageUrl: `${mj.url}/images/${ids.drawnOk}.png`,
      submitTime: Date.now() - 30_000,
      finishTime: Date.now(),
    });
    mj.update(ids.drawnFailed, { status: 'FAILURE', progress: '0%', failReason: 'prompt contains a banned word' });
    ids.songOk = (await relay('/suno/submit/music', { prompt: 'sea shanty' })).data;
    ids.songFailed = (await relay('/suno/submit/lyrics', { prompt: 'rain' })).data;
    suno.update(ids.songOk, { status: 'IN_PROGRESS', progress: '60%' });
    suno.update(ids.songFailed, { status: 'FAILURE', fail_reason: 'upstream credits exhausted' });
    await waitUntil(async () => {
      const drawn = await consoleCall<{ items: { mj_id: string; status: string }[] }>(page, 'GET', `/api/mj/?mj_id=${ids.drawnFailed}`);
      const song = await consoleCall<{ status: string }[]>(page, 'GET', `/api/task/?p=0&task_id=${ids.songOk}`);
      return drawn.data.items[0]?.status === 'FAILURE' && song.data[0]?.status === 'IN_PROGRESS';
    }, 'the gateway to poll the tasks');
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await mj?.close();
    await suno?.close();
  });

  afterEach((context) => screenshotIfFailed(context, browser, 'task'));

  it('shows the drawing log with its filters, image preview, failure reason and the callback notice', async () => {
    await page.goto('/midjourney');
    const table = page.getByTestId('drawing-table');
    await table.getByText(ids.drawnOk).waitFor();
    await page.getByTestId('callback-notice').waitFor();
    await table.getByText('成功').first().waitFor();
    await table.getByText('失败').first().waitFor();
    // Exact: a row's whole text can hold the same characters (a time ending in ':23' before a '0 秒' cell).
    await table.getByText('30 秒', { exact: true }).waitFor();
    await browser.screenshot('task-01-drawing-log');

    // Filter by task id.
    await fill('filter-id', ids.drawnOk);
    await page.getByTestId('filter-query').click();
    await waitUntil(async () => (await table.locator('tbody tr').count()) === 1, 'the filtered drawing list');
    await table.getByTestId('view-image').click();
    const image = page.getByTestId('drawing-image');
    await image.waitFor();
    expect(await image.getAttribute('src')).toBe(`${mj.url}/images/${ids.drawnOk}.png`);
    await waitUntil(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 1), 'the image to load');
    await page.keyboard.press('Escape');

    await fill('filter-id', ids.drawnFailed);
    await page.getByTestId('filter-query').click();
    await table.getByTestId('fail-reason').click();
    expect(await page.getByTestId('fail-reason-text').textContent()).toBe('prompt contains a banned word');
    await page.keyboard.press('Escape');

    // The admin's channel filter: an unknown channel lists nothing.
    await fill('filter-id', '');
    await fill('filter-channel', '999');
    await page.getByTestId('filter-query').click();
    await waitUntil(async () => (await table.getByText(ids.drawnOk).count()) === 0, 'the empty channel filter');
  });

  it('shows the task log with progress, JSON detail and failure reasons', async () => {
    await page.goto('/task');
    const table = page.getByTestId('task-table');
    await table.getByText(ids.songOk).waitFor();
    await table.getByTestId('progress-ring').first().waitFor();
    await table.getByText('60%').waitFor();
    await table.getByText('执行中').waitFor();
    await table.getByText('生成歌词').waitFor();
    await browser.screenshot('task-02-task-log');

    await table.getByText(ids.songOk).click();
    const detail = JSON.parse((await page.getByTestId('task-detail').textContent()) ?? '{}');
    expect(detail).toMatchObject({ task_id: ids.songOk, platform: 'suno', action: 'MUSIC', status: 'IN_PROGRESS' });
    await page.keyboard.press('Escape');

    await table.getByTestId('fail-reason').click();
    expect(await page.getByTestId('fail-reason-text').textContent()).toBe('upstream credits exhausted');
    await page.keyboard.press('Escape');

    await fill('filter-id', ids.songFailed);
    await page.getByTestId('filter-query').click();
    await waitUntil(async () => (await table.locator('tbody tr').count()) === 1, 'the filtered task list');
    await table.getByText('失败', { exact: true }).waitFor();
  });

  it('keeps the loaded tasks and fetches the next 0-based page when the user reaches the last loaded page', async () => {
    // 22 more songs: with the two above, three server pages of 10 (10, 10, 4), newest first.
    const songs: string[] = [];
    for (let n = 0; n < 22; n++) songs.push((await relay('/suno/submit/lyrics', { prompt: `verse ${n}` })).data);
    const newestFirst = [...songs.reverse(), ids.songFailed, ids.songOk];
    const fetched: URL[] = [];
    const onRequest = (request: { url(): string }) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/task/') fetched.push(url);
    };
    page.on('request', onRequest);
    try {
      await page.evaluate(() => localStorage.setItem('page-size', '10'));
      await page.goto('/task');
      const table = page.getByTestId('task-table');
      const shows = async (from: number, to: number) => {
        for (const id of newestFirst.slice(from, to)) await table.getByText(id, { exact: true }).waitFor();
        await waitUntil(async () => (await table.locator('tbody tr').count()) === to - from, `rows ${from + 1}-${to}`);
      };
      const pagerItem = (n: number) => table.locator('li.semi-page-item').filter({ hasText: new RegExp(`^${n}$`) });

      await shows(0, 10);
      // A full page came back: the pager offers more than what is loaded.
      await table.getByText('可能还有更多').waitFor();
      await pagerItem(2).click();
      await shows(10, 20);
      await pagerItem(3).click();
      await shows(20, 24);
      await browser.screenshot('task-02b-task-log-pages');
      // The last page was short: the end is known, and the pager counts the rows.
      await table.getByText('共 24 条').waitFor();
      expect(await table.getByText('可能还有更多').count()).toBe(0);
      expect(await pagerItem(4).count()).toBe(0);
      // Going back shows the rows loaded before, without fetching them again.
      await pagerItem(1).click();
      await shows(0, 10);
      const pages = fetched.map((url) => url.searchParams.get('p'));
      expect(pages).toEqual(['0', '1', '2']);
      expect(fetched.every((url) => url.searchParams.get('page_size') === '10')).toBe(true);

      // A new query starts again from p=0 on the first page.
      await pagerItem(2).click();
      await shows(10, 20);
      await fill('filter-id', newestFirst[12]!);
      await page.getByTestId('filter-query').click();
      await shows(12, 13);
      expect(fetched.at(-1)!.searchParams.get('p')).toBe('0');
      expect(fetched.at(-1)!.searchParams.get('task_id')).toBe(newestFirst[12]);
      expect(await table.getByText('可能还有更多').count()).toBe(0);
    } finally {
      page.off('request', onRequest);
    }
  });

  it('shows a regular user only their own tasks, without the channel filter, column or callback notice', async () => {
    expect((await consoleCall(page, 'POST', '/api/user/', { username: 'painter', password: 'painter-pass-1' })).success).toBe(true);
    await page.getByTestId('task-table').waitFor();
    await page.evaluate(() => localStorage.removeItem('user'));
    await page.context().clearCookies();
    await page.goto('/login');
    await page.locator('input[name="username"]').fill('painter');
    await page.locator('input[name="password"]').fill('painter-pass-1');
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/token');

    await page.goto('/midjourney');
    const table = page.getByTestId('drawing-table');
    await table.waitFor();
    await page.getByTestId('filter-id').waitFor();
    expect(await page.getByTestId('filter-channel').count()).toBe(0);
    expect(await page.getByTestId('callback-notice').count()).toBe(0);
    expect(await table.getByText(ids.drawnOk).count()).toBe(0);
    expect(await table.getByRole('columnheader', { name: '渠道' }).count()).toBe(0);

    await page.goto('/task');
    await page.getByTestId('task-table').waitFor();
    expect(await page.getByTestId('task-table').getByText(ids.songOk).count()).toBe(0);
    await browser.screenshot('task-03-user-view');
  });
});
