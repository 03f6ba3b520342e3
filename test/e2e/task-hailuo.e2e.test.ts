import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMiniMaxVideo, type FakeMiniMaxVideo } from '../fake-upstream/fake-minimax-video.js';
import { testDatabases } from '../support/databases.js';
import { startTaskSuite, type TaskSuite } from './task-suite.js';

const MODEL = 'MiniMax-Hailuo-02';
/** $0.5 per call. */
const PRICE = 250_000;

describe.each(testDatabases())('MiniMax Hailuo video relay on %s', (kind) => {
  let t: TaskSuite;
  let minimax: FakeMiniMaxVideo;
  const lastTask = () => [...minimax.tasks.keys()].at(-1)!;

  beforeAll(async () => {
    minimax = await startFakeMiniMaxVideo('minimax-key');
    t = await startTaskSuite(kind, {
      channel: { type: 35, key: 'minimax-key', base_url: minimax.url, models: MODEL },
      prices: { [MODEL]: 0.5 },
    });
  });
  afterAll(async () => {
    await t?.fx.close();
    await minimax?.close();
  });

  it('submits to video_generation, polls, and finishes with the download URL of the file', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const res = await t.call('/v1/video/generations', {
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
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - PRICE);

    minimax.update(lastTask(), { status: 'Processing' });
    await t.poll();
    expect((await t.call(`/v1/video/generations/${res.body.id}`)).body).toMatchObject({ status: 'in_progress', progress: 50 });
    minimax.update(lastTask(), { status: 'Success', file_id: 'file-77' });
    expect((await t.poll())?.tasks?.succeeded).toBe(1);
    expect((await t.call(`/v1/video/generations/${res.body.id}`)).body).toMatchObject({
      status: 'completed',
      metadata: { url: 'https://minimax.example/files/file-77.mp4' },
    });
    expect(minimax.requests.some((req) => req.path === '/v1/files/retrieve' && req.query.get('file_id') === 'file-77')).toBe(true);
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - PRICE);
  });

  it("refunds a failed task once, and refuses a submit MiniMax rejects with MiniMax's message", async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const res = await t.call('/v1/video/generations', { model: MODEL, prompt: 'will fail' });
    minimax.update(lastTask(), { status: 'Fail' });
    expect((await t.poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await t.poll();
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
    expect((await t.call(`/v1/video/generations/${res.body.id}`)).body.status).toBe('failed');
    const refused = await t.call('/v1/video/generations', { model: MODEL, prompt: 'refuse me' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: '1026', message: 'input new_sensitive' });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
  });
});
