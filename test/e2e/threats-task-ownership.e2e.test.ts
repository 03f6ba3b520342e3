import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskPoller } from '@gw/task';
import { startFakeMidjourney, type FakeMidjourney } from '../fake-upstream/fake-midjourney.js';
import { startFakeVideo, VIDEO_BYTES, type FakeVideoServer } from '../fake-upstream/fake-video.js';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

/**
 * Threat Z1 (GHSA-f35r-v9x5-r8mc) with real ids: user B holds the real id of user A's task (video or
 * Midjourney) and tries every route that reads, downloads, derives from or updates a task by id. Each answer
 * must be the answer for a missing id (no existence oracle), carry none of A's data, charge B nothing and
 * reach no upstream; A still gets its task. The authorization matrix (hardening-authz) only uses made-up ids.
 */
const VIDEO_KEY = 'sk-z1-video-Q7m2Xk9Lp4';
const MJ_SECRET = 'z1-mj-upstream-secret';
const VIDEO_MODEL = 'sora-2';
const PROMPT_A = 'z1 private prompt of user A';
const MJ_PROMPT_A = 'z1 private drawing of user A';

interface Answer {
  status: number;
  text: string;
  body: any;
  contentType: string | null;
}

describe.each(testDatabases())('threat Z1: a user reads another user’s real task by its real id on %s', (kind) => {
  let fx: RelayFixture;
  let video: FakeVideoServer;
  let mj: FakeMidjourney;
  let keyA: string;
  let keyB: string;
  let clientB: ApiClient;
  let idB: number;
  let videoTaskId: string;
  let upstreamVideoId: string;
  let mjTaskId: string;

  const call = async (key: string, method: 'GET' | 'POST', route: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${fx.gw.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, text, body: parsed, contentType: res.headers.get('content-type') };
  };
  const poll = () => fx.gw.gateway.app.get(TaskPoller).runOnce();

  /** B's answer for A's id equals B's answer for an id that never existed, and carries nothing of A's task. */
  function expectSameAsMissing(mine: Answer, missing: Answer, secrets: string[], what: string) {
    expect(mine.status, `${what}: ${mine.text}`).toBe(missing.status);
    expect(mine.contentType, what).toBe(missing.contentType);
    expect(mine.body, what).toEqual(missing.body);
    for (const secret of secrets) expect(mine.text, `${what} leaks ${secret}`).not.toContain(secret);
  }

  beforeAll(async () => {
    video = await startFakeVideo(VIDEO_KEY);
    mj = await startFakeMidjourney(MJ_SECRET);
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    await fx.setOption('ModelPrice', { [VIDEO_MODEL]: 0.1, mj_imagine: 0.1, mj_upscale: 0.05, mj_variation: 0.1 });
    await fx.channel({ type: 55, key: VIDEO_KEY, base_url: video.url, models: VIDEO_MODEL });
    await fx.channel({ type: 2, key: MJ_SECRET, base_url: mj.url, models: 'mj_imagine,mj_upscale,mj_variation' });
    keyA = (await fx.token({ remain_quota: 5_000_000 })).key;

    expect((await fx.root.post('/api/user/', { username: 'z1_bob', password: 'password-123' })).body.success).toBe(true);
    clientB = fx.gw.client();
    const login = await clientB.login('z1_bob', 'password-123');
    expect(login.body.success, login.text).toBe(true);
    idB = login.body.data.id;
    await fx.setQuota(idB, 10_000_000);
    keyB = (await fx.token({ remain_quota: 5_000_000 }, clientB)).key;

    // A's finished video.
    const created = await call(keyA, 'POST', '/v1/videos', { model: VIDEO_MODEL, prompt: PROMPT_A, seconds: '4' });
    expect(created.status, created.text).toBe(200);
    videoTaskId = created.body.id;
    upstreamVideoId = [...video.videos.keys()].at(-1)!;
    video.update(upstreamVideoId, { status: 'completed', progress: 100, completed_at: Math.floor(Date.now() / 1000) });
    expect((await poll())?.tasks?.succeeded).toBe(1);

    // A's finished Midjourney drawing.
    const imagine = await call(keyA, 'POST', '/mj/submit/imagine', { prompt: MJ_PROMPT_A });
    expect(imagine.body?.code, imagine.text).toBe(1);
    mjTaskId = imagine.body.result;
    mj.update(mjTaskId, { status: 'SUCCESS', progress: '100%', imageUrl: `${mj.url}/images/${mjTaskId}.png`, finishTime: Date.now() });
    expect((await poll())?.midjourney?.succeeded).toBe(1);
  });
  afterAll(async () => {
    await fx?.close();
    await video?.close();
    await mj?.close();
  });

  it('refuses B the video on every read route with the missing-id answer (404), while A reads it', async () => {
    const secrets = [PROMPT_A, upstreamVideoId, VIDEO_BYTES.toString()];
    const upstreamCalls = video.requests.length;
    for (const route of ['/v1/videos/:id', '/v1/video/generations/:id', '/v1/videos/:id/content']) {
      const missing = await call(keyB, 'GET', route.replace(':id', 'task_z1MissingMissingMissingMissing00'));
      expect(missing.status, route).toBe(404);
      expectSameAsMissing(await call(keyB, 'GET', route.replace(':id', videoTaskId)), missing, secrets, `B ${route}`);
      // The provider's own id is no key to the task either.
      expectSameAsMissing(await call(keyB, 'GET', route.replace(':id', upstreamVideoId)), missing, secrets, `B ${route} (upstream id)`);
    }
    // B's calls never reached the provider (no download with the channel's key on B's behalf).
    expect(video.requests.length).toBe(upstreamCalls);

    const read = await call(keyA, 'GET', `/v1/videos/${videoTaskId}`);
    expect(read.body).toMatchObject({ id: videoTaskId, status: 'completed' });
    expect((await call(keyA, 'GET', `/v1/video/generations/${videoTaskId}`)).body).toMatchObject({ id: videoTaskId });
    const content = await fetch(`${fx.gw.url}/v1/videos/${videoTaskId}/content`, { headers: { authorization: `Bearer ${keyA}` } });
    expect(content.status).toBe(200);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(VIDEO_BYTES);
  });

  it('refuses B a remix of A’s video as of a missing one: no charge, no upstream call', async () => {
    const before = await fx.quota(idB);
    const upstreamCalls = video.requests.length;
    const missing = await call(keyB, 'POST', '/v1/videos/task_z1MissingMissingMissingMissing00/remix', { prompt: 'steal it' });
    expect(missing).toMatchObject({ status: 400, body: { code: 'task_not_exist' } });
    const mine = await call(keyB, 'POST', `/v1/videos/${videoTaskId}/remix`, { prompt: 'steal it' });
    expectSameAsMissing(mine, missing, [PROMPT_A, upstreamVideoId], 'B remix');
    expect(video.requests.length).toBe(upstreamCalls);
    expect(await fx.quota(idB)).toBe(before);
  });

  it('keeps A’s task out of B’s console task log, list and detail', async () => {
    const filtered = await clientB.get(`/api/task/self?task_id=${videoTaskId}`);
    expect(filtered.body, filtered.text).toMatchObject({ success: true, data: [] });
    const all = await clientB.get('/api/task/self?p=0&page_size=100');
    expect(all.body.success).toBe(true);
    expect(Array.isArray(all.body.data)).toBe(true);
    expect(all.text).not.toContain(videoTaskId);
    expect(all.text).not.toContain(PROMPT_A);
    // B is no admin: the all-users log is closed to it.
    const adminList = await clientB.get(`/api/task/?task_id=${videoTaskId}`);
    expect(adminList.body.success).toBe(false);
    expect(adminList.text).not.toContain(videoTaskId);

    const own = await fx.user.client.get(`/api/task/self?task_id=${videoTaskId}`);
    expect(own.body.data).toEqual([expect.objectContaining({ task_id: videoTaskId, status: 'SUCCESS' })]);
  });

  it('refuses B the Midjourney task on fetch, image-seed, list, follow-ups and notify; A still reads it', async () => {
    const secrets = [MJ_PROMPT_A, `/images/${mjTaskId}.png`];
    const before = await fx.quota(idB);
    const upstreamCalls = mj.requests.length;
    for (const route of ['/mj/task/:id/fetch', '/mj-fast/mj/task/:id/fetch', '/mj/task/:id/image-seed']) {
      const missing = await call(keyB, 'GET', route.replace(':id', '9999999999999999'));
      // Midjourney-proxy's own answer for an unknown task (as new-api): HTTP 400, code 4.
      expect(missing, route).toMatchObject({ status: 400, body: { code: 4, description: 'task_no_found' } });
      expectSameAsMissing(await call(keyB, 'GET', route.replace(':id', mjTaskId)), missing, secrets, `B ${route}`);
    }
    const listed = await call(keyB, 'POST', '/mj/task/list-by-condition', { ids: [mjTaskId] });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([]);

    for (const [route, body] of [
      ['/mj/submit/change', (id: string) => ({ taskId: id, action: 'UPSCALE', index: 1 })],
      ['/mj/submit/simple-change', (id: string) => ({ content: `${id} U1` })],
    ] as const) {
      const missing = await call(keyB, 'POST', route, body('9999999999999999'));
      expect(missing, route).toMatchObject({ status: 400, body: { code: 4, description: 'task_not_found' } });
      expectSameAsMissing(await call(keyB, 'POST', route, body(mjTaskId)), missing, secrets, `B ${route}`);
    }

    // A forged completion report from B does not touch A's task.
    const missingNotice = await call(keyB, 'POST', '/mj/notify', { id: '9999999999999999', status: 'FAILURE', failReason: 'forged' });
    expect(missingNotice).toMatchObject({ status: 400, body: { code: 4, description: 'task_no_found' } });
    const notice = await call(keyB, 'POST', '/mj/notify', { id: mjTaskId, status: 'FAILURE', progress: '100%', failReason: 'forged' });
    expectSameAsMissing(notice, missingNotice, secrets, 'B notify');

    expect(mj.requests.length, 'B reached the Midjourney proxy').toBe(upstreamCalls);
    expect(await fx.quota(idB)).toBe(before);

    const drawLog = await clientB.get(`/api/mj/self?mj_id=${mjTaskId}`);
    expect(drawLog.body, drawLog.text).toMatchObject({ success: true, data: { total: 0, items: [] } });
    expect((await clientB.get('/api/mj/self?p=1&page_size=100')).text).not.toContain(mjTaskId);

    const fetched = await call(keyA, 'GET', `/mj/task/${mjTaskId}/fetch`);
    expect(fetched.body).toMatchObject({ id: mjTaskId, status: 'SUCCESS', progress: '100%', prompt: MJ_PROMPT_A });
    expect(fetched.body.failReason ?? '').not.toContain('forged');
    expect((await fx.user.client.get(`/api/mj/self?mj_id=${mjTaskId}`)).body.data.items).toEqual([
      expect.objectContaining({ mj_id: mjTaskId, status: 'SUCCESS' }),
    ]);
  });
});
