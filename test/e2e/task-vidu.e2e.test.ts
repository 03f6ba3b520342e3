import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskPoller } from '@gw/task';
import { startFakeVidu, type FakeVidu } from '../fake-upstream/fake-vidu.js';
import { testDatabases } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

const MODEL = 'viduq1';
/** viduq1 at $0.3 per call: 0.3 × 500000. */
const PRICE = 150_000;

describe.each(testDatabases())('Vidu video relay on %s', (kind) => {
  let fx: RelayFixture;
  let vidu: FakeVidu;
  let key: string;
  const call = (method: 'GET' | 'POST', route: string, body?: unknown) =>
    fetch(`${fx.gw.url}${route}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const poll = () => fx.gw.gateway.app.get(TaskPoller).runOnce();
  const lastTask = () => [...vidu.tasks.keys()].at(-1)!;

  beforeAll(async () => {
    vidu = await startFakeVidu('vidu-key');
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    await fx.setOption('ModelPrice', { [MODEL]: 0.3 });
    await fx.channel({ type: 52, key: 'vidu-key', base_url: vidu.url, models: MODEL });
    key = (await fx.token({ remain_quota: 5_000_000 })).key;
  });
  afterAll(async () => {
    await fx?.close();
    await vidu?.close();
  });

  it('sends a text prompt to text2video with the Token header, charges per call and polls to success', async () => {
    const before = await fx.quota(fx.user.id);
    const res = await call('POST', '/v1/video/generations', { model: MODEL, prompt: 'a kite over dunes', duration: 4, size: '720p' });
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
    expect(await fx.quota(fx.user.id)).toBe(before - PRICE);

    vidu.update(lastTask(), { state: 'processing' });
    await poll();
    expect((await call('GET', `/v1/video/generations/${id}`)).body).toMatchObject({ id, status: 'in_progress' });
    vidu.update(lastTask(), { state: 'success', creations: [{ id: 'c1', url: 'https://cdn.example/kite.mp4', cover_url: '' }] });
    expect((await poll())?.tasks?.succeeded).toBe(1);
    expect((await call('GET', `/v1/video/generations/${id}`)).body).toMatchObject({
      id,
      status: 'completed',
      metadata: { url: 'https://cdn.example/kite.mp4' },
    });
    expect(await fx.quota(fx.user.id)).toBe(before - PRICE);
  });

  it('picks the endpoint from the images: one, first and last frame, references; metadata overrides fields', async () => {
    await call('POST', '/v1/video/generations', { model: MODEL, prompt: 'move', image: 'https://cdn.example/a.png' });
    expect(vidu.requests.at(-1)!.path).toBe('/ent/v2/img2video');
    await call('POST', '/v1/video/generations', { model: MODEL, images: ['https://cdn.example/a.png', 'https://cdn.example/b.png'] });
    expect(vidu.requests.at(-1)!.path).toBe('/ent/v2/start-end2video');
    await call('POST', '/v1/video/generations', {
      model: MODEL,
      prompt: 'three refs',
      images: ['https://cdn.example/1.png', 'https://cdn.example/2.png', 'https://cdn.example/3.png'],
      metadata: { bgm: true, seed: 7 },
    });
    expect(vidu.requests.at(-1)!.path).toBe('/ent/v2/reference2video');
    expect(vidu.requests.at(-1)!.body).toMatchObject({ bgm: true, seed: 7 });
  });

  it('refunds a failed task exactly once and reports the error code', async () => {
    const before = await fx.quota(fx.user.id);
    const res = await call('POST', '/v1/video/generations', { model: MODEL, prompt: 'doomed' });
    expect(await fx.quota(fx.user.id)).toBe(before - PRICE);
    vidu.update(lastTask(), { state: 'failed', err_code: 'AuditSubmitIllegal' });
    expect((await poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await poll();
    expect(await fx.quota(fx.user.id)).toBe(before);
    expect((await call('GET', `/v1/video/generations/${res.body.id}`)).body).toMatchObject({
      status: 'failed',
      error: { message: 'AuditSubmitIllegal' },
    });
  });

  it('refuses bad submits and upstream refusals without charging', async () => {
    const before = await fx.quota(fx.user.id);
    expect((await call('POST', '/v1/video/generations', { model: MODEL })).status).toBe(400);
    expect((await call('POST', '/v1/video/generations', { model: MODEL, prompt: 'x', duration: -3 })).status).toBe(400);
    const refused = await call('POST', '/v1/video/generations', { model: MODEL, prompt: 'refuse me' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('credit insufficient');
    expect(await fx.quota(fx.user.id)).toBe(before);
  });
});
