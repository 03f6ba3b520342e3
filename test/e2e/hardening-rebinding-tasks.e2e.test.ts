import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskPoller } from '@gw/task';
import { startFakeSuno, type FakeSuno } from '../fake-upstream/fake-suno.js';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { scriptResolver } from './rebind-resolver.js';
import { type RelayFixture, startRelayFixture } from './relay-fixture.js';

/**
 * Threats S5 with DNS rebinding, on the task routes: a task channel an admin saved while its name resolved to a
 * public address must stay public when a task is submitted, polled or its video downloaded, even after the name
 * is pointed at loopback; a task channel root saved on a private address keeps working. Names under
 * `.rebind.test` are answered by the scripted resolver (rebind-resolver.ts), as in hardening-rebinding.
 */
const PUBLIC = '93.184.216.34';
const KEY = 'sk-rebind-task-Q7fK2mXw9pLr4TzV';
const ROOT_KEY = 'sk-rebind-root-H4nB8vCx1sDe6Wq';
const VIDEO_MODEL = 'sora-2';
/** suno_lyrics at new-api's default 0.01 × QuotaPerUnit 500000. */
const LYRICS = 5_000;
const CANARY_VIDEO = 'canary-video-id';

let phase: 'public' | 'loopback' = 'public';
const answerFor = (host: string): LookupAddress[] | undefined => {
  if (!host.endsWith('.rebind.test')) return undefined;
  // A root-saved service name always answers loopback; the admin's names flip.
  if (host.startsWith('svc.')) return [{ address: '127.0.0.1', family: 4 }];
  return [{ address: phase === 'public' ? PUBLIC : '127.0.0.1', family: 4 }];
};

describe.each(testDatabases())('task channels checked public when saved stay public when tasks connect (threats S5) on %s', (kind) => {
  let fx: RelayFixture;
  let suno: FakeSuno;
  let admin: ApiClient;
  let canary: Server;
  let canaryPort: number;
  /** Every request that reached the loopback canary (which stands for an intranet service). */
  let hits = 0;
  let tokenKey: string;
  let restoreResolver: (() => void) | undefined;

  const call = async (method: 'GET' | 'POST', route: string, body?: unknown) => {
    const res = await fetch(`${fx.gw.url}${route}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenKey}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as any };
  };
  const poll = () => fx.gw.gateway.app.get(TaskPoller).runOnce();
  const taskRows = async () => (await fx.ds.getRepository('tasks').find()) as { taskId: string; status: string; channelId: number }[];
  const saveChannel = async (client: ApiClient, channel: Record<string, unknown>) => {
    const res = await client.post('/api/channel/', { mode: 'single', channel: { group: 'default', ...channel } });
    expect(res.body.success, res.text).toBe(true);
    const id = res.body.data.ids[0] as number;
    const row = (await fx.ds.getRepository('channels').findOneBy({ id })) as { baseUrlPublic: number | null };
    return { id, flag: row.baseUrlPublic === null ? null : Number(row.baseUrlPublic) };
  };
  /** The unreachable-provider answer of a task route, with no address, name or key in it. */
  const expectClean = (answer: { text: string }) => {
    for (const leak of ['127.0.0.1', 'rebind.test', PUBLIC, String(canaryPort), KEY.slice(3, 15)]) expect(answer.text).not.toContain(leak);
  };

  beforeAll(async () => {
    restoreResolver = scriptResolver(answerFor);
    canary = createServer((req, res) => {
      hits++;
      const path = (req.url ?? '/').split('?')[0]!;
      req.resume();
      res.setHeader('content-type', 'application/json');
      if (path.startsWith('/suno/submit/')) return res.end(JSON.stringify({ code: 'success', message: '', data: 'canary-suno-task' }));
      if (path === '/suno/fetch') return res.end(JSON.stringify({ code: 'success', message: '', data: [] }));
      if (path === '/v1/videos') return res.end(JSON.stringify({ id: CANARY_VIDEO, object: 'video', status: 'queued', progress: 0 }));
      if (path === `/v1/videos/${CANARY_VIDEO}`)
        return res.end(JSON.stringify({ id: CANARY_VIDEO, object: 'video', status: 'completed', progress: 100, seconds: '4' }));
      if (path === `/v1/videos/${CANARY_VIDEO}/content`) {
        res.setHeader('content-type', 'video/mp4');
        return res.end('intranet video bytes');
      }
      res.statusCode = 404;
      res.end('{}');
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    canaryPort = (canary.address() as AddressInfo).port;
    suno = await startFakeSuno(ROOT_KEY);
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    // new-api's default prices of the Suno models, and a per-second one for the video model.
    await fx.setOption('ModelPrice', { suno_music: 0.1, suno_lyrics: 0.01, [VIDEO_MODEL]: 0.1 });
    expect((await fx.root.post('/api/user/', { username: 'rebindtasks', password: 'rebind-pass-1' })).body.success).toBe(true);
    admin = fx.gw.client();
    const login = await admin.login('rebindtasks', 'rebind-pass-1');
    expect((await fx.root.post('/api/user/manage', { id: login.body.data.id, action: 'promote' })).body.success).toBe(true);
    tokenKey = (await fx.token({ remain_quota: 5_000_000 })).key;
  });
  afterAll(async () => {
    await fx?.close();
    await suno?.close();
    await new Promise<void>((resolve) => canary?.close(() => resolve()));
    restoreResolver?.();
  });

  it('records the admin-saved task channels as public and the root-saved private one as not', async () => {
    phase = 'public';
    const sunoChannel = await saveChannel(admin, {
      type: 36,
      name: 'rebind-suno',
      key: KEY,
      models: 'suno_music',
      base_url: `http://suno.rebind.test:${canaryPort}`,
    });
    const videoChannel = await saveChannel(admin, {
      type: 55,
      name: 'rebind-video',
      key: KEY,
      models: VIDEO_MODEL,
      base_url: `http://video.rebind.test:${canaryPort}`,
    });
    const rootChannel = await saveChannel(fx.root, {
      type: 36,
      name: 'rebind-root-suno',
      key: ROOT_KEY,
      models: 'suno_lyrics',
      base_url: `http://svc.rebind.test:${new URL(suno.url).port}`,
    });
    expect([sunoChannel.flag, videoChannel.flag, rootChannel.flag]).toEqual([1, 1, 0]);
    expect(hits).toBe(0);
  });

  it('refuses the submit once the name answers loopback: the unreachable-provider answer, nothing charged or kept', async () => {
    phase = 'loopback';
    const before = await fx.userRow(fx.user.id);
    const music = await call('POST', '/suno/submit/music', { prompt: 'a song about foxes' });
    expect(music.status, music.text).toBe(502);
    expect(music.body).toEqual({ code: 'do_request_failed', message: 'the task provider could not be reached', data: null });
    expectClean(music);
    const video = await call('POST', '/v1/videos', { model: VIDEO_MODEL, prompt: 'a fox in the snow', seconds: '4' });
    expect(video.status, video.text).toBe(502);
    expect(video.body).toEqual({ code: 'do_request_failed', message: 'the task provider could not be reached', data: null });
    expectClean(video);
    const generic = await call('POST', '/v1/video/generations', { model: VIDEO_MODEL, prompt: 'a fox in the snow' });
    expect(generic.status, generic.text).toBe(502);
    expect(hits).toBe(0);
    const after = await fx.userRow(fx.user.id);
    expect([after.quota, after.usedQuota, after.requestCount]).toEqual([before.quota, before.usedQuota, before.requestCount]);
    expect(await taskRows()).toEqual([]);
    expect(await fx.logs({ userId: fx.user.id, type: 2 })).toEqual([]);
  });

  it("keeps root's private task channel working (a service name that answers loopback)", async () => {
    const before = await fx.quota(fx.user.id);
    const lyrics = await call('POST', '/suno/submit/lyrics', { prompt: 'rain' });
    expect(lyrics.status, lyrics.text).toBe(200);
    expect(lyrics.body.code).toBe('success');
    expect(suno.requests.at(-1)!.path).toBe('/suno/submit/lyrics');
    expect(await fx.quota(fx.user.id)).toBe(before - LYRICS);
    expect(hits).toBe(0);
  });

  it('holds the rule when tasks are polled and a video is downloaded; AllowPrivateOutboundUrls lifts it', async () => {
    // With the option on, the admin's channels reach the canary: a Suno task and a finished video to work with.
    await fx.setOption('AllowPrivateOutboundUrls', true);
    let videoId: string;
    try {
      expect((await call('POST', '/suno/submit/music', { prompt: 'inside' })).status).toBe(200);
      const video = await call('POST', '/v1/videos', { model: VIDEO_MODEL, prompt: 'inside', seconds: '4' });
      expect(video.status, video.text).toBe(200);
      videoId = video.body.id as string;
      expect(hits).toBe(2);
      await poll();
      expect(hits).toBe(4);
      expect((await call('GET', `/v1/videos/${videoId}`)).body.status).toBe('completed');
      const content = await fetch(`${fx.gw.url}/v1/videos/${videoId}/content`, { headers: { authorization: `Bearer ${tokenKey}` } });
      expect(await content.text()).toBe('intranet video bytes');
      expect(hits).toBe(5);
    } finally {
      await fx.setOption('AllowPrivateOutboundUrls', false);
    }
    // Off again: the poll of the Suno task and the download of the video are refused before connecting.
    await poll();
    expect(hits).toBe(5);
    expect((await taskRows()).find((row) => row.taskId === 'canary-suno-task')?.status).toBe('SUBMITTED');
    const refused = await call('GET', `/v1/videos/${videoId}/content`);
    expect(refused.status, refused.text).toBe(502);
    expect(refused.body).toEqual({ code: 'fetch_content_failed', message: 'the video could not be fetched from the provider', data: null });
    expectClean(refused);
    expect(hits).toBe(5);
  });
});
