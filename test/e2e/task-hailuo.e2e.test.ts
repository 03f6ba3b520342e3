import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskPoller } from '@gw/task';
import { startFakeMiniMaxVideo, type FakeMiniMaxVideo } from '../fake-upstream/fake-minimax-video.js';
import { testDatabases } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

const MODEL = 'MiniMax-Hailuo-02';
/** $0.5 per call. */
const PRICE = 250_000;

describe.each(testDatabases())('MiniMax Hailuo video relay on %s', (kind) => {
  let fx: RelayFixture;
  let minimax: FakeMiniMaxVideo;
  let key: string;
  const call = (route: string, body?: unknown) =>
    fetch(`${fx.gw.url}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const poll = () => fx.gw.gateway.app.get(TaskPoller).runOnce();
  const lastTask = () => [...minimax.tasks.keys()].at(-1)!;

  beforeAll(async () => {
    minimax = await startFakeMiniMaxVideo('minimax-key');
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    await fx.setOption('ModelPrice', { [MODEL]: 0.5 });
    await fx.channel({ type: 35, key: 'minimax-key', base_url: minimax.url, models: MODEL });
    key = (await fx.token({ remain_quota: 5_000_000 })).key;
  });
  afterAll(async () => {
    await fx?.close();
    await minimax?.close();
  });

  it('submits to video_generation, polls, and finishes with the download URL of the file', async () => {
    const before = await fx.quota(fx.user.id);
    const res = await call('/v1/video/generations', {
      model: MODEL,
      prompt: 'a lantern festival',
      image: 'https://cdn.example/first.png',
      size: '1920x1080',
      metadata: { prompt_optimizer: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'video', status: 'queued' });
    expect(minimax.requests.at(-1)!.body).toEqual({
      model: MODEL,
      prompt: 'a lantern festival',
      duration: 6,
      resolution: '1080P',
      first_frame_image: 'https://cdn.example/first.png',
      prompt_optimizer: false,
    });
    expect(await fx.quota(fx.user.id)).toBe(before - PRICE);

    minimax.update(lastTask(), { status: 'Processing' });
    await poll();
    expect((await call(`/v1/video/generations/${res.body.id}`)).body).toMatchObject({ status: 'in_progress', progress: 50 });
    minimax.update(lastTask(), { status: 'Success', file_id: 'file-77' });
    expect((await poll())?.tasks?.succeeded).toBe(1);
    expect((await call(`/v1/video/generations/${res.body.id}`)).body).toMatchObject({
      status: 'completed',
      metadata: { url: 'https://minimax.example/files/file-77.mp4' },
    });
    expect(minimax.requests.some((req) => req.path === '/v1/files/retrieve' && req.query.get('file_id') === 'file-77')).toBe(true);
    expect(await fx.quota(fx.user.id)).toBe(before - PRICE);
  });

  it("refunds a failed task once, and refuses a submit MiniMax rejects with MiniMax's message", async () => {
    const before = await fx.quota(fx.user.id);
    const res = await call('/v1/video/generations', { model: MODEL, prompt: 'will fail' });
    minimax.update(lastTask(), { status: 'Fail' });
    expect((await poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await poll();
    expect(await fx.quota(fx.user.id)).toBe(before);
    expect((await call(`/v1/video/generations/${res.body.id}`)).body.status).toBe('failed');
    const refused = await call('/v1/video/generations', { model: MODEL, prompt: 'refuse me' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: '1026', message: 'input new_sensitive' });
    expect(await fx.quota(fx.user.id)).toBe(before);
  });
});
