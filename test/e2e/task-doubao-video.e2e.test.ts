import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeArkVideo, type FakeArkVideo } from '../fake-upstream/fake-ark-video.js';
import { testDatabases } from '../support/databases.js';
import { startTestGateway } from '../support/test-gateway.js';
import { startTaskSuite, type TaskSuite } from './task-suite.js';

/** Priced by ratio (1.2): charged (1.2 / 2) × 500000 at submit, then tokens × 1.2 at the end. */
const BY_TOKENS = 'doubao-seedance-1-0-pro-250528';
const SUBMIT_CHARGE = 300_000;
/** Priced per call ($0.4): never re-priced. */
const PER_CALL = 'doubao-seedance-1-0-lite-t2v';
const CALL_PRICE = 200_000;

describe.each(testDatabases())('Doubao (Ark) video relay on %s', (kind) => {
  let t: TaskSuite;
  let ark: FakeArkVideo;
  const lastTask = () => [...ark.tasks.keys()].at(-1)!;

  beforeAll(async () => {
    ark = await startFakeArkVideo('ark-key');
    t = await startTaskSuite(kind, {
      channel: { type: 54, key: 'ark-key', base_url: ark.url, models: `${BY_TOKENS},${PER_CALL}` },
      prices: { [PER_CALL]: 0.4 },
      ratios: { [BY_TOKENS]: 1.2 },
    });
  });
  afterAll(async () => {
    await t?.fx.close();
    await ark?.close();
  });

  it("builds Ark's content list, then settles a ratio-priced model at the tokens reported", async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const res = await t.call('/v1/video/generations', {
      model: BY_TOKENS,
      prompt: 'a red panda on a bicycle',
      image: 'https://cdn.example/panda.png',
      duration: 5,
      metadata: { resolution: '720p', ratio: '16:9', seed: 11, camera_fixed: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'video', status: 'queued', model: BY_TOKENS });
    const sent = ark.requests.at(-1)!;
    expect(sent.path).toBe('/api/v3/contents/generations/tasks');
    expect(sent.body).toEqual({
      model: BY_TOKENS,
      content: [
        { type: 'image_url', image_url: { url: 'https://cdn.example/panda.png' } },
        { type: 'text', text: 'a red panda on a bicycle' },
      ],
      duration: 5,
      resolution: '720p',
      ratio: '16:9',
      seed: 11,
      camera_fixed: false,
    });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - SUBMIT_CHARGE);

    ark.update(lastTask(), { status: 'running' });
    await t.poll();
    expect((await t.call(`/v1/video/generations/${res.body.id}`)).body).toMatchObject({ status: 'in_progress', progress: 50 });
    ark.update(lastTask(), {
      status: 'succeeded',
      content: { video_url: 'https://ark.example/panda.mp4' },
      usage: { completion_tokens: 108_900, total_tokens: 108_900 },
    });
    expect((await t.poll())?.tasks?.succeeded).toBe(1);
    await t.poll();
    // 108900 tokens × 1.2 = 130680: the rest of the submit charge comes back, once.
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - 130_680);
    expect((await t.call(`/v1/video/generations/${res.body.id}`)).body).toMatchObject({
      status: 'completed',
      metadata: { url: 'https://ark.example/panda.mp4' },
    });
  });

  it('settles once when three instances poll the finished task at the same moment', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    await t.call('/v1/video/generations', { model: BY_TOKENS, prompt: 'contended' });
    ark.update(lastTask(), {
      status: 'succeeded',
      content: { video_url: 'https://ark.example/c.mp4' },
      usage: { completion_tokens: 1_000, total_tokens: 1_000 },
    });
    const env = { TASK_POLL_INTERVAL: '3600' };
    const b = await startTestGateway(kind, env, t.fx.gw.db);
    const c = await startTestGateway(kind, env, t.fx.gw.db);
    try {
      const passes = await Promise.all([t.fx.gw, b, c].map((gw) => t.poll(gw)));
      expect(passes.reduce((sum, pass) => sum + (pass?.tasks?.succeeded ?? 0), 0)).toBe(1);
    } finally {
      await c.close();
      await b.close();
    }
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - 1_200);
    const settlements = (await t.fx.logs({ userId: t.fx.user.id })).filter(
      (row: any) => JSON.parse(row.other || '{}').actual_quota === 1_200,
    );
    expect(settlements).toHaveLength(1);
  });

  it('keeps the per-call price of a fixed-price model whatever tokens are reported', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    await t.call('/v1/video/generations', { model: PER_CALL, prompt: 'waves' });
    ark.update(lastTask(), {
      status: 'succeeded',
      content: { video_url: 'https://ark.example/w.mp4' },
      usage: { completion_tokens: 9, total_tokens: 9 },
    });
    await t.poll();
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - CALL_PRICE);
  });

  it("refunds a failure once with Ark's message, and charges nothing for a refused submit", async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const res = await t.call('/v1/video/generations', { model: PER_CALL, prompt: 'storm' });
    ark.update(lastTask(), {
      status: 'failed',
      error: { code: 'OutputVideoSensitiveContentDetected', message: 'the output may be sensitive' },
    });
    expect((await t.poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await t.poll();
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
    expect((await t.call(`/v1/video/generations/${res.body.id}`)).body.error).toMatchObject({ message: 'the output may be sensitive' });
    const refused = await t.call('/v1/video/generations', { model: PER_CALL, prompt: 'refuse me' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('the prompt may contain sensitive information');
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
  });
});
