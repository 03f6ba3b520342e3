import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogService } from '@gw/log';
import { TaskPoller } from '@gw/task';
import { startFakeSuno, type FakeSuno } from '../fake-upstream/fake-suno.js';
import { testDatabases } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

/** Random-looking as real keys are: answers are cleared of any 8-character run of the channel's key. */
const KEY = 'sk-suno-Q7fK2mXw9pLr4TzV';
/** Default prices (new-api): suno_music 0.1, suno_lyrics 0.01; QuotaPerUnit 500000. */
const MUSIC = 50_000;
const LYRICS = 5_000;

describe.each(testDatabases())('Suno relay, task polling and refunds on %s', (kind) => {
  let fx: RelayFixture;
  let suno: FakeSuno;
  let key: string;
  let channelId: number;

  const call = (method: 'GET' | 'POST', route: string, body?: unknown) =>
    fetch(`${fx.gw.url}${route}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const poll = () => fx.gw.gateway.app.get(TaskPoller).runOnce();

  beforeAll(async () => {
    suno = await startFakeSuno(KEY);
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    channelId = await fx.channel({ type: 36, key: KEY, base_url: suno.url, models: 'suno_music,suno_lyrics' });
    key = (await fx.token({ remain_quota: 5_000_000 })).key;
  });
  afterAll(async () => {
    await fx?.close();
    await suno?.close();
  });

  it('submits music, charges once, and polls it to success', async () => {
    const before = await fx.userRow(fx.user.id);
    const res = await call('POST', '/suno/submit/music', { prompt: 'a song about foxes', tags: 'folk' });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe('success');
    const taskId = res.body.data as string;
    expect(suno.requests.at(-1)!.body).toMatchObject({ prompt: 'a song about foxes', mv: 'chirp-v3-0' });
    const after = await fx.userRow(fx.user.id);
    expect(before.quota - after.quota).toBe(MUSIC);
    expect(after.requestCount - before.requestCount).toBe(1);
    expect((await fx.logCount({ userId: fx.user.id, modelName: 'suno_music', type: 2 }, 1))[0].quota).toBe(MUSIC);

    let fetched = await call('GET', `/suno/fetch/${taskId}`);
    expect(fetched.body.data).toMatchObject({ task_id: taskId, platform: 'suno', action: 'MUSIC', status: 'SUBMITTED', progress: '0%' });
    expect(fetched.body.data.channel_id).toBeUndefined();

    suno.update(taskId, { status: 'IN_PROGRESS', progress: '30%' });
    await poll();
    expect((await call('GET', `/suno/fetch/${taskId}`)).body.data).toMatchObject({ status: 'IN_PROGRESS', progress: '30%' });
    suno.update(taskId, {
      status: 'SUCCESS',
      progress: '100%',
      data: [{ audio_url: 'https://cdn.example/a.mp3' }],
      finish_time: 1_700_000_000,
    });
    expect((await poll())?.tasks?.succeeded).toBe(1);
    fetched = await call('POST', '/suno/fetch', { ids: [taskId, 'someone-else'] });
    expect(fetched.body.data).toHaveLength(1);
    expect(fetched.body.data[0]).toMatchObject({ status: 'SUCCESS', progress: '100%', data: [{ audio_url: 'https://cdn.example/a.mp3' }] });
    expect(await fx.quota(fx.user.id)).toBe(after.quota);

    // The console's task log.
    const own = await fx.user.client.get(`/api/task/self?p=0&page_size=10&task_id=${taskId}`);
    expect(own.body.data).toHaveLength(1);
    expect(own.body.data[0]).toMatchObject({ task_id: taskId, platform: 'suno', status: 'SUCCESS', quota: MUSIC });
    expect(own.body.data[0].private_data).toBeUndefined();
    expect(own.body.data[0].channel_id).toBeUndefined();
    const admin = await fx.root.get(`/api/task/?p=0&channel_id=${channelId}`);
    expect(admin.body.data[0].channel_id).toBe(channelId);
    expect((await fx.user.client.get('/api/task/')).body.success).toBe(false);
  });

  it('refunds a failed lyrics task exactly once', async () => {
    const before = await fx.quota(fx.user.id);
    const res = await call('POST', '/suno/submit/lyrics', { prompt: 'rain' });
    const taskId = res.body.data as string;
    expect(await fx.quota(fx.user.id)).toBe(before - LYRICS);
    suno.update(taskId, { status: 'FAILURE', fail_reason: 'content policy' });
    expect((await poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await poll();
    expect(await fx.quota(fx.user.id)).toBe(before);
    expect((await call('GET', `/suno/fetch/${taskId}`)).body.data).toMatchObject({
      status: 'FAILURE',
      progress: '100%',
      fail_reason: 'content policy',
    });
    await fx.gw.gateway.app.get(LogService).flush();
    const refunds = (await fx.ds.getRepository('logs').find({ where: { userId: fx.user.id, type: 4 } })).filter((row: any) =>
      String(row.other).includes('task_refund'),
    );
    expect(refunds).toHaveLength(1);
  });

  it('refuses bad submits without charging and keeps nothing of a refused one', async () => {
    const before = await fx.quota(fx.user.id);
    expect((await call('POST', '/suno/submit/lyrics', { prompt: '' })).body).toMatchObject({
      code: 'invalid_request',
      message: 'prompt_empty',
    });
    expect((await call('POST', '/suno/submit/video', {})).body).toMatchObject({ message: 'invalid_action' });
    suno.nextSubmit({ status: 200, body: { code: 'error', message: 'upstream is out of credits', data: null } });
    const refused = await call('POST', '/suno/submit/music', { prompt: 'x' });
    suno.nextSubmit(undefined);
    expect(refused.status).toBe(500);
    expect(refused.body).toMatchObject({ code: 'error', message: 'upstream is out of credits' });
    expect((await call('GET', '/suno/fetch/nope')).body).toMatchObject({ code: 'task_not_exist' });
    expect((await call('POST', '/suno/fetch', { ids: 'x' })).status).toBe(400);
    expect(await fx.quota(fx.user.id)).toBe(before);
  });
});
