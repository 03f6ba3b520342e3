import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeKling, type FakeKling } from '../fake-upstream/fake-kling.js';
import { testDatabases } from '../support/databases.js';
import { startTaskSuite, type TaskSuite } from './task-suite.js';

const MODEL = 'kling-v1';
/** kling-v1 at $0.2 per call here: 0.2 × 500000. */
const PRICE = 100_000;

describe.each(testDatabases())('Kling video relay on %s', (kind) => {
  let t: TaskSuite;
  let kling: FakeKling;

  beforeAll(async () => {
    kling = await startFakeKling('kling-ak', 'kling-sk');
    t = await startTaskSuite(kind, {
      channel: { type: 50, key: 'kling-ak|kling-sk', base_url: kling.url, models: MODEL },
      prices: { [MODEL]: 0.2 },
    });
  });
  afterAll(async () => {
    await t?.fx.close();
    await kling?.close();
  });

  it('submits text2video with a signed JWT, charges per call and polls it to success', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const res = await t.call('/kling/v1/videos/text2video', {
      model_name: MODEL,
      prompt: 'a paper boat',
      duration: '5',
      aspect_ratio: '16:9',
    });
    expect(res.status).toBe(200);
    const id = res.body.id as string;
    expect(id).toMatch(/^task_/);
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - PRICE);
    const sent = kling.requests.at(-1)!;
    expect(sent.path).toBe('/v1/videos/text2video');
    expect(sent.jwt?.iss).toBe('kling-ak');
    expect(sent.body).toMatchObject({ prompt: 'a paper boat', model_name: MODEL, duration: '5', aspect_ratio: '16:9', mode: 'std' });

    const upstreamId = [...kling.tasks.keys()].at(-1)!;
    kling.update(upstreamId, { task_status: 'processing' });
    await t.poll();
    expect((await t.call(`/kling/v1/videos/text2video/${id}`)).body.data).toMatchObject({ task_id: id, task_status: 'processing' });

    kling.update(upstreamId, { task_status: 'succeed', videos: [{ id: 'v1', url: 'https://cdn.example/boat.mp4', duration: '5' }] });
    expect((await t.poll())?.tasks?.succeeded).toBe(1);
    const done = await t.call(`/kling/v1/videos/text2video/${id}`);
    expect(done.body.data).toMatchObject({ task_status: 'succeed', task_result: { videos: [{ url: 'https://cdn.example/boat.mp4' }] } });
    const unified = await t.call(`/v1/video/generations/${id}`);
    expect(unified.body).toMatchObject({ id, status: 'completed', progress: 100, metadata: { url: 'https://cdn.example/boat.mp4' } });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - PRICE);
  });

  it('routes /v1/video/generations by the model to Kling image2video and refunds a failure once', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const res = await t.call('/v1/video/generations', {
      model: MODEL,
      prompt: 'animate this',
      image: 'https://cdn.example/still.png',
      size: '1280x720',
    });
    expect(res.status).toBe(200);
    expect(kling.requests.at(-1)!.path).toBe('/v1/videos/image2video');
    expect(kling.requests.at(-1)!.body).toMatchObject({ image: 'https://cdn.example/still.png', aspect_ratio: '16:9' });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - PRICE);
    kling.update([...kling.tasks.keys()].at(-1)!, { task_status: 'failed', task_status_msg: 'image rejected' });
    expect((await t.poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await t.poll();
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
    expect((await t.call(`/kling/v1/videos/image2video/${res.body.id}`)).body.data).toMatchObject({
      task_status: 'failed',
      task_status_msg: 'image rejected',
    });
  });

  it('refuses bad submits without charging', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    expect((await t.call('/kling/v1/videos/text2video', { model_name: MODEL })).status).toBe(400);
    expect((await t.call('/kling/v1/videos/image2video', { model_name: MODEL, prompt: 'no image' })).body.message).toBe(
      'image is required for image2video',
    );
    expect((await t.call('/kling/v1/videos/lipsync', { prompt: 'x' })).status).toBe(404);
    const refused = await t.call('/kling/v1/videos/text2video', { model_name: MODEL, prompt: 'refuse me' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('prompt violates the content policy');
    expect((await t.call('/v1/video/generations', { prompt: 'no model' })).status).toBe(400);
    expect((await t.call('/kling/v1/videos/text2video/task_missing')).status).toBe(404);
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
  });
});
