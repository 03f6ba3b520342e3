import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeVidu, type FakeVidu } from '../fake-upstream/fake-vidu.js';
import { testDatabases } from '../support/databases.js';
import { startTaskSuite, type TaskSuite } from './task-suite.js';

const MODEL = 'viduq1';
/** viduq1 at $0.3 per call: 0.3 × 500000. */
const PRICE = 150_000;

describe.each(testDatabases())('Vidu video relay on %s', (kind) => {
  let t: TaskSuite;
  let vidu: FakeVidu;
  const lastTask = () => [...vidu.tasks.keys()].at(-1)!;

  beforeAll(async () => {
    vidu = await startFakeVidu('vidu-key');
    t = await startTaskSuite(kind, {
      channel: { type: 52, key: 'vidu-key', base_url: vidu.url, models: MODEL },
      prices: { [MODEL]: 0.3 },
    });
  });
  afterAll(async () => {
    await t?.fx.close();
    await vidu?.close();
  });

  it('sends a text prompt to text2video with the Token header, charges per call and polls to success', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const res = await t.call('/v1/video/generations', { model: MODEL, prompt: 'a kite over dunes', duration: 4, size: '720p' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'video', status: 'queued', model: MODEL });
    const id = res.body.id as string;
    expect(id).toMatch(/^task_/);
    const sent = vidu.requests.at(-1)!;
    expect(sent.path).toBe('/ent/v2/text2video');
    expect(sent.body).toMatchObject({
      model: MODEL,
      prompt: 'a kite over dunes',
      duration: 4,
      resolution: '720p',
      movement_amplitude: 'auto',
    });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - PRICE);

    vidu.update(lastTask(), { state: 'processing' });
    await t.poll();
    expect((await t.call(`/v1/video/generations/${id}`)).body).toMatchObject({ id, status: 'in_progress' });
    vidu.update(lastTask(), { state: 'success', creations: [{ id: 'c1', url: 'https://cdn.example/kite.mp4', cover_url: '' }] });
    expect((await t.poll())?.tasks?.succeeded).toBe(1);
    expect((await t.call(`/v1/video/generations/${id}`)).body).toMatchObject({
      id,
      status: 'completed',
      metadata: { url: 'https://cdn.example/kite.mp4' },
    });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - PRICE);
  });

  it('picks the endpoint from the images: one, first and last frame, references; metadata overrides fields', async () => {
    await t.call('/v1/video/generations', { model: MODEL, prompt: 'move', image: 'https://cdn.example/a.png' });
    expect(vidu.requests.at(-1)!.path).toBe('/ent/v2/img2video');
    await t.call('/v1/video/generations', { model: MODEL, images: ['https://cdn.example/a.png', 'https://cdn.example/b.png'] });
    expect(vidu.requests.at(-1)!.path).toBe('/ent/v2/start-end2video');
    await t.call('/v1/video/generations', {
      model: MODEL,
      prompt: 'three refs',
      images: ['https://cdn.example/1.png', 'https://cdn.example/2.png', 'https://cdn.example/3.png'],
      metadata: { bgm: true, seed: 7 },
    });
    expect(vidu.requests.at(-1)!.path).toBe('/ent/v2/reference2video');
    expect(vidu.requests.at(-1)!.body).toMatchObject({ bgm: true, seed: 7 });
  });

  it('refunds a failed task exactly once and reports the error code', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const res = await t.call('/v1/video/generations', { model: MODEL, prompt: 'doomed' });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - PRICE);
    vidu.update(lastTask(), { state: 'failed', err_code: 'AuditSubmitIllegal' });
    expect((await t.poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await t.poll();
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
    expect((await t.call(`/v1/video/generations/${res.body.id}`)).body).toMatchObject({
      status: 'failed',
      error: { message: 'AuditSubmitIllegal' },
    });
  });

  it('refuses bad submits and upstream refusals without charging', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    expect((await t.call('/v1/video/generations', { model: MODEL })).status).toBe(400);
    expect((await t.call('/v1/video/generations', { model: MODEL, prompt: 'x', duration: -3 })).status).toBe(400);
    const refused = await t.call('/v1/video/generations', { model: MODEL, prompt: 'refuse me' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('credit insufficient');
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
  });
});
