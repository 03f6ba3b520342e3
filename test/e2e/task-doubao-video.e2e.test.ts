import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskPoller } from '@gw/task';
import { startFakeArkVideo, type FakeArkVideo } from '../fake-upstream/fake-ark-video.js';
import { testDatabases } from '../support/databases.js';
import { startTestGateway } from '../support/test-gateway.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

/** Priced by ratio (1.2): charged (1.2 / 2) × 500000 at submit, then tokens × 1.2 at the end. */
const BY_TOKENS = 'doubao-seedance-1-0-pro-250528';
const SUBMIT_CHARGE = 300_000;
/** Priced per call ($0.4): never re-priced. */
const PER_CALL = 'doubao-seedance-1-0-lite-t2v';
const CALL_PRICE = 200_000;

describe.each(testDatabases())('Doubao (Ark) video relay on %s', (kind) => {
  let fx: RelayFixture;
  let ark: FakeArkVideo;
  let key: string;
  const call = (route: string, body?: unknown) =>
    fetch(`${fx.gw.url}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const poll = () => fx.gw.gateway.app.get(TaskPoller).runOnce();
  const lastTask = () => [...ark.tasks.keys()].at(-1)!;

  beforeAll(async () => {
    ark = await startFakeArkVideo('ark-key');
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    await fx.setOption('ModelRatio', { [BY_TOKENS]: 1.2 });
    await fx.setOption('ModelPrice', { [PER_CALL]: 0.4 });
    await fx.channel({ type: 54, key: 'ark-key', base_url: ark.url, models: `${BY_TOKENS},${PER_CALL}` });
    key = (await fx.token({ remain_quota: 5_000_000 })).key;
  });
  afterAll(async () => {
    await fx?.close();
    await ark?.close();
  });

  it("builds Ark's content list, then settles a ratio-priced model at the tokens reported", async () => {
    const before = await fx.quota(fx.user.id);
    const res = await call('/v1/video/generations', {
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
    expect(await fx.quota(fx.user.id)).toBe(before - SUBMIT_CHARGE);

    ark.update(lastTask(), { status: 'running' });
    await poll();
    expect((await call(`/v1/video/generations/${res.body.id}`)).body).toMatchObject({ status: 'in_progress', progress: 50 });
    ark.update(lastTask(), {
      status: 'succeeded',
      content: { video_url: 'https://ark.example/panda.mp4' },
      usage: { completion_tokens: 108_900, total_tokens: 108_900 },
    });
    expect((await poll())?.tasks?.succeeded).toBe(1);
    await poll();
    // 108900 tokens × 1.2 = 130680: the rest of the submit charge comes back, once.
    expect(await fx.quota(fx.user.id)).toBe(before - 130_680);
    expect((await call(`/v1/video/generations/${res.body.id}`)).body).toMatchObject({
      status: 'completed',
      metadata: { url: 'https://ark.example/panda.mp4' },
    });
  });

  it('settles once when three instances poll the finished task at the same moment', async () => {
    const before = await fx.quota(fx.user.id);
    await call('/v1/video/generations', { model: BY_TOKENS, prompt: 'contended' });
    ark.update(lastTask(), {
      status: 'succeeded',
      content: { video_url: 'https://ark.example/c.mp4' },
      usage: { completion_tokens: 1_000, total_tokens: 1_000 },
    });
    const env = { TASK_POLL_INTERVAL: '3600' };
    const b = await startTestGateway(kind, env, fx.gw.db);
    const c = await startTestGateway(kind, env, fx.gw.db);
    try {
      const passes = await Promise.all([fx.gw, b, c].map((gw) => gw.gateway.app.get(TaskPoller).runOnce()));
      expect(passes.reduce((sum, pass) => sum + (pass?.tasks?.succeeded ?? 0), 0)).toBe(1);
    } finally {
      await c.close();
      await b.close();
    }
    expect(await fx.quota(fx.user.id)).toBe(before - 1_200);
    const settlements = (await fx.logs({ userId: fx.user.id })).filter((row: any) => JSON.parse(row.other || '{}').actual_quota === 1_200);
    expect(settlements).toHaveLength(1);
  });

  it('keeps the per-call price of a fixed-price model whatever tokens are reported', async () => {
    const before = await fx.quota(fx.user.id);
    await call('/v1/video/generations', { model: PER_CALL, prompt: 'waves' });
    ark.update(lastTask(), {
      status: 'succeeded',
      content: { video_url: 'https://ark.example/w.mp4' },
      usage: { completion_tokens: 9, total_tokens: 9 },
    });
    await poll();
    expect(await fx.quota(fx.user.id)).toBe(before - CALL_PRICE);
  });

  it("refunds a failure once with Ark's message, and charges nothing for a refused submit", async () => {
    const before = await fx.quota(fx.user.id);
    const res = await call('/v1/video/generations', { model: PER_CALL, prompt: 'storm' });
    ark.update(lastTask(), {
      status: 'failed',
      error: { code: 'OutputVideoSensitiveContentDetected', message: 'the output may be sensitive' },
    });
    expect((await poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await poll();
    expect(await fx.quota(fx.user.id)).toBe(before);
    expect((await call(`/v1/video/generations/${res.body.id}`)).body.error).toMatchObject({ message: 'the output may be sensitive' });
    const refused = await call('/v1/video/generations', { model: PER_CALL, prompt: 'refuse me' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('the prompt may contain sensitive information');
    expect(await fx.quota(fx.user.id)).toBe(before);
  });
});
