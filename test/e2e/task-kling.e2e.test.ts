import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskPoller } from '@gw/task';
import { startFakeKling, type FakeKling } from '../fake-upstream/fake-kling.js';
import { testDatabases } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

const MODEL = 'kling-v1';
/** kling-v1 at $0.2 per call here: 0.2 × 500000. */
const PRICE = 100_000;

describe.each(testDatabases())('Kling video relay on %s', (kind) => {
  let fx: RelayFixture;
  let kling: FakeKling;
  let key: string;
  const call = (method: 'GET' | 'POST', route: string, body?: unknown) =>
    fetch(`${fx.gw.url}${route}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const poll = () => fx.gw.gateway.app.get(TaskPoller).runOnce();

  beforeAll(async () => {
    kling = await startFakeKling('kling-ak', 'kling-sk');
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    await fx.setOption('ModelPrice', { [MODEL]: 0.2 });
    await fx.channel({ type: 50, key: 'kling-ak|kling-sk', base_url: kling.url, models: MODEL });
    key = (await fx.token({ remain_quota: 5_000_000 })).key;
  });
  afterAll(async () => {
    await fx?.close();
    await kling?.close();
  });

  it('submits text2video with a signed JWT, charges per call and polls it to success', async () => {
    const before = await fx.quota(fx.user.id);
    const res = await call('POST', '/kling/v1/videos/text2video', {
      model_name: MODEL,
      prompt: 'a paper boat',
      duration: '5',
      aspect_ratio: '16:9',
    });
    expect(res.status).toBe(200);
    const id = res.body.id as string;
    expect(id).toMatch(/^task_/);
    expect(await fx.quota(fx.user.id)).toBe(before - PRICE);
    const sent = kling.requests.at(-1)!;
    expect(sent.path).toBe('/v1/videos/text2video');
    expect(sent.jwt?.iss).toBe('kling-ak');
    expect(sent.body).toMatchObject({ prompt: 'a paper boat', model_name: MODEL, duration: '5', aspect_ratio: '16:9', mode: 'std' });

    const upstreamId = [...kling.tasks.keys()].at(-1)!;
    kling.update(upstreamId, { task_status: 'processing' });
    await poll();
    expect((await call('GET', `/kling/v1/videos/text2video/${id}`)).body.data).toMatchObject({ task_id: id, task_status: 'processing' });

    kling.update(upstreamId, { task_status: 'succeed', videos: [{ id: 'v1', url: 'https://cdn.example/boat.mp4', duration: '5' }] });
    expect((await poll())?.tasks?.succeeded).toBe(1);
    const done = await call('GET', `/kling/v1/videos/text2video/${id}`);
    expect(done.body.data).toMatchObject({ task_status: 'succeed', task_result: { videos: [{ url: 'https://cdn.example/boat.mp4' }] } });
    const unified = await call('GET', `/v1/video/generations/${id}`);
    expect(unified.body).toMatchObject({ id, status: 'completed', progress: 100, metadata: { url: 'https://cdn.example/boat.mp4' } });
    expect(await fx.quota(fx.user.id)).toBe(before - PRICE);
  });

  it('routes /v1/video/generations by the model to Kling image2video and refunds a failure once', async () => {
    const before = await fx.quota(fx.user.id);
    const res = await call('POST', '/v1/video/generations', {
      model: MODEL,
      prompt: 'animate this',
      image: 'https://cdn.example/still.png',
      size: '1280x720',
    });
    expect(res.status).toBe(200);
    expect(kling.requests.at(-1)!.path).toBe('/v1/videos/image2video');
    expect(kling.requests.at(-1)!.body).toMatchObject({ image: 'https://cdn.example/still.png', aspect_ratio: '16:9' });
    expect(await fx.quota(fx.user.id)).toBe(before - PRICE);
    kling.update([...kling.tasks.keys()].at(-1)!, { task_status: 'failed', task_status_msg: 'image rejected' });
    expect((await poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await poll();
    expect(await fx.quota(fx.user.id)).toBe(before);
    expect((await call('GET', `/kling/v1/videos/image2video/${res.body.id}`)).body.data).toMatchObject({
      task_status: 'failed',
      task_status_msg: 'image rejected',
    });
  });

  it('refuses bad submits without charging', async () => {
    const before = await fx.quota(fx.user.id);
    expect((await call('POST', '/kling/v1/videos/text2video', { model_name: MODEL })).status).toBe(400);
    expect((await call('POST', '/kling/v1/videos/image2video', { model_name: MODEL, prompt: 'no image' })).body.message).toBe(
      'image is required for image2video',
    );
    expect((await call('POST', '/kling/v1/videos/lipsync', { prompt: 'x' })).status).toBe(404);
    const refused = await call('POST', '/kling/v1/videos/text2video', { model_name: MODEL, prompt: 'refuse me' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('prompt violates the content policy');
    expect((await call('POST', '/v1/video/generations', { prompt: 'no model' })).status).toBe(400);
    expect((await call('GET', '/kling/v1/videos/text2video/task_missing')).status).toBe(404);
    expect(await fx.quota(fx.user.id)).toBe(before);
  });
});
