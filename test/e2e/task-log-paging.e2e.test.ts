import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSuno, type FakeSuno } from '../fake-upstream/fake-suno.js';
import { testDatabases } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

const KEY = 'sk-suno-P3wR8tYq5ZnM2vKc';
const TASKS = 5;
const SIZE = 2;

/**
 * Spec 001: the task log pages from 0 (`p`), newest first, and answers `data` as the list itself (no total):
 * the console fetches the next page when the user reaches the last one loaded.
 */
describe.each(testDatabases())('task log paging (0-based, plain list) on %s', (kind) => {
  let fx: RelayFixture;
  let suno: FakeSuno;
  let channelId: number;
  /** The fixture user's tasks, newest first. */
  let newestFirst: string[];

  const ids = (rows: { task_id: string }[]) => rows.map((row) => row.task_id);
  const own = async (query: string) => {
    const res = await fx.user.client.get(`/api/task/self?${query}`);
    expect(res.body.success, res.text).toBe(true);
    expect(Array.isArray(res.body.data), res.text).toBe(true);
    return res.body.data as { id: number; task_id: string; channel_id?: number }[];
  };

  beforeAll(async () => {
    suno = await startFakeSuno(KEY);
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    channelId = await fx.channel({ type: 36, key: KEY, base_url: suno.url, models: 'suno_music,suno_lyrics' });
    const { key } = await fx.token({ remain_quota: 5_000_000 });
    const submitted: string[] = [];
    for (let n = 0; n < TASKS; n++) {
      const res = await fetch(`${fx.gw.url}/suno/submit/lyrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ prompt: `verse ${n}` }),
      });
      const answer = (await res.json()) as { code: string; data: string };
      expect(answer.code).toBe('success');
      submitted.push(answer.data);
    }
    newestFirst = submitted.reverse();
  });
  afterAll(async () => {
    await fx?.close();
    await suno?.close();
  });

  it('gives disjoint newest-first slices for p=0, 1, 2 and an empty list past the end', async () => {
    const first = await own(`p=0&page_size=${SIZE}`);
    const second = await own(`p=1&page_size=${SIZE}`);
    const third = await own(`p=2&page_size=${SIZE}`);
    expect(ids(first)).toEqual(newestFirst.slice(0, SIZE));
    expect(ids(second)).toEqual(newestFirst.slice(SIZE, 2 * SIZE));
    expect(ids(third)).toEqual(newestFirst.slice(2 * SIZE));
    expect(first.map((row) => row.id)).toEqual([...first.map((row) => row.id)].sort((a, b) => b - a));
    expect(first[SIZE - 1]!.id).toBeGreaterThan(second[0]!.id);
    expect(await own(`p=3&page_size=${SIZE}`)).toEqual([]);
    expect(first[0]!.channel_id).toBeUndefined();
  });

  it('reads a missing, negative or junk p as the first page, and the default size as 10', async () => {
    const first = ids(await own(`p=0&page_size=${SIZE}`));
    for (const p of ['-1', 'abc', '', '1.5']) expect(ids(await own(`p=${p}&page_size=${SIZE}`)), `p=${p}`).toEqual(first);
    expect(ids(await own(`page_size=${SIZE}`))).toEqual(first);
    expect(ids(await own(''))).toEqual(newestFirst);
    expect(ids(await own('p=0&page_size=10'))).toEqual(newestFirst);
    expect(ids(await own('p=0&page_size=100000'))).toEqual(newestFirst);
  });

  it('pages the admin list the same way, with the channel', async () => {
    const page = (p: string) => fx.root.get(`/api/task/?p=${p}&page_size=${SIZE}&channel_id=${channelId}`);
    const first = (await page('0')).body.data as { task_id: string; channel_id: number }[];
    const second = (await page('1')).body.data as { task_id: string; channel_id: number }[];
    expect(ids(first)).toEqual(newestFirst.slice(0, SIZE));
    expect(ids(second)).toEqual(newestFirst.slice(SIZE, 2 * SIZE));
    expect(first.every((row) => row.channel_id === channelId)).toBe(true);
    expect(ids((await page('-1')).body.data)).toEqual(ids(first));
    expect(ids((await page('abc')).body.data)).toEqual(ids(first));
  });

  it('answers a bad filter with a JSON error in the console envelope, never a 5xx', async () => {
    for (const query of ['start_timestamp=abc', 'end_timestamp=-5', 'channel_id=x', `task_id=${'x'.repeat(300)}`, 'task_id=a&task_id=b']) {
      for (const path of ['/api/task/self', '/api/task/']) {
        const client = path === '/api/task/' ? fx.root : fx.user.client;
        const res = await client.get(`${path}?p=0&${query}`);
        expect(res.status, `${path}?${query}`).toBeLessThan(500);
        expect(res.body, `${path}?${query}`).toMatchObject({ success: false, message: expect.any(String) });
      }
    }
  });
});
