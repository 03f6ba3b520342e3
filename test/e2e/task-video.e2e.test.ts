import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskPoller } from '@gw/task';
import { startFakeVideo, VIDEO_BYTES, type FakeVideoServer } from '../fake-upstream/fake-video.js';
import { testDatabases } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

/** Key-like (no ordinary word in it), so the no-leak check can look for every 8-character run of it. */
const KEY = 'sk-vid-K3yQ0123456789abcdefXYZ';
const MODEL = 'sora-2';
/** sora-2 priced at $0.1 per second here: 0.1 × 500000 = 50000 quota per second. */
const PER_SECOND = 50_000;

describe.each(testDatabases())('OpenAI-compatible video generation on %s', (kind) => {
  let fx: RelayFixture;
  let up: FakeVideoServer;
  let key: string;
  let client: OpenAI;
  const poll = () => fx.gw.gateway.app.get(TaskPoller).runOnce();

  beforeAll(async () => {
    up = await startFakeVideo(KEY);
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    await fx.setOption('ModelPrice', { [MODEL]: 0.1 });
    await fx.channel({ type: 55, key: KEY, base_url: up.url, models: MODEL });
    key = (await fx.token({ remain_quota: 5_000_000 })).key;
    client = new OpenAI({ apiKey: key, baseURL: `${fx.gw.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await fx?.close();
    await up?.close();
  });

  it('creates a video with the official client, bills per second, polls it to completion and serves the bytes', async () => {
    const before = await fx.quota(fx.user.id);
    const video = await client.videos.create({ model: MODEL, prompt: 'a fox in the snow', seconds: '8', size: '720x1280' });
    expect(video.id).toMatch(/^task_[A-Za-z0-9]{32}$/);
    expect(video.status).toBe('queued');
    expect(await fx.quota(fx.user.id)).toBe(before - 8 * PER_SECOND);
    const upstreamId = [...up.videos.keys()].at(-1)!;
    expect(up.requests.at(-1)!.body).toMatchObject({ model: MODEL, prompt: 'a fox in the snow', seconds: '8' });

    up.update(upstreamId, { status: 'in_progress', progress: 40 });
    await poll();
    let read = await client.videos.retrieve(video.id);
    expect(read).toMatchObject({ id: video.id, status: 'in_progress', progress: 40 });

    up.update(upstreamId, { status: 'completed', progress: 100, completed_at: Math.floor(Date.now() / 1000) });
    expect((await poll())?.tasks?.succeeded).toBe(1);
    read = await client.videos.retrieve(video.id);
    expect(read).toMatchObject({ status: 'completed', progress: 100 });
    const content = await client.videos.downloadContent(video.id);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(VIDEO_BYTES);
    // The same task through the other route family.
    const generic = await fetch(`${fx.gw.url}/v1/video/generations/${video.id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await generic.json()) as any).status).toBe('completed');
    expect(await fx.quota(fx.user.id)).toBe(before - 8 * PER_SECOND);

    // A remix runs on the original's channel, at the original's length.
    const remix = await client.videos.remix(video.id, { prompt: 'now at night' });
    expect(remix.id).toMatch(/^task_/);
    expect(up.requests.at(-1)!.path).toBe(`/v1/videos/${upstreamId}/remix`);
    expect(await fx.quota(fx.user.id)).toBe(before - 16 * PER_SECOND);

    const log = await fx.user.client.get(`/api/task/self?task_id=${video.id}`);
    expect(log.body.data[0]).toMatchObject({ platform: '55', status: 'SUCCESS', quota: 8 * PER_SECOND });
  });

  it('settles a finished video at the length really rendered, once: a shorter one pays back, a longer one pays more', async () => {
    const before = await fx.quota(fx.user.id);
    const short = await client.videos.create({ model: MODEL, prompt: 'ends early', seconds: '8', size: '720x1280' });
    const shortId = [...up.videos.keys()].at(-1)!;
    const long = await client.videos.create({ model: MODEL, prompt: 'runs long', seconds: '4', size: '720x1280' });
    const longId = [...up.videos.keys()].at(-1)!;
    expect(await fx.quota(fx.user.id)).toBe(before - 12 * PER_SECOND);
    up.update(shortId, { status: 'completed', progress: 100, seconds: '4' });
    up.update(longId, { status: 'completed', progress: 100, seconds: '6' });
    expect((await poll())?.tasks?.succeeded).toBe(2);
    await poll();
    expect(await fx.quota(fx.user.id)).toBe(before - 10 * PER_SECOND);
    const rows = await fx.user.client.get(`/api/task/self?task_id=${short.id}`);
    expect(rows.body.data[0]).toMatchObject({ status: 'SUCCESS', quota: 4 * PER_SECOND });
    expect((await fx.user.client.get(`/api/task/self?task_id=${long.id}`)).body.data[0].quota).toBe(6 * PER_SECOND);
    const settlements = (await fx.logs({ userId: fx.user.id })).filter((row: any) => JSON.parse(row.other || '{}').task_settlement);
    expect(settlements.map((row: any) => [row.type, row.quota])).toEqual(
      expect.arrayContaining([
        [4, 4 * PER_SECOND],
        [2, 2 * PER_SECOND],
      ]),
    );
    expect(settlements).toHaveLength(2);
  });

  it('prices a model billed by a task expression by seconds and resolution, settles on the seconds rendered with the frozen expression', async () => {
    const PRO = 'sora-2-pro';
    const expr = (high: number) =>
      `(u("resolution") == "1024p" ? tier("high", u("seconds") * ${high}) : tier("standard", u("seconds") * 0.3 * (param("boost") ?? 1))) * (header("x-rush") == "yes" ? 2 : 1)`;
    await fx.setOption('billing_setting.billing_mode', { [PRO]: 'tiered_expr' });
    await fx.setOption('billing_setting.billing_expr', { [PRO]: expr(0.5) });
    await fx.channel({ type: 55, key: KEY, base_url: up.url, models: PRO });
    const usd = 500_000;
    const before = await fx.quota(fx.user.id);

    // 8 s at 1792x1024: US$ 0.5 a second, no per-call price or size ratio.
    await client.videos.create({ model: PRO, prompt: 'wide', seconds: '8', size: '1792x1024' });
    const highId = [...up.videos.keys()].at(-1)!;
    expect(before - (await fx.quota(fx.user.id))).toBe(8 * 0.5 * usd);
    // 4 s at 720p, × 2 read from the body.
    const post = (body: Record<string, unknown>) =>
      fetch(`${fx.gw.url}/v1/video/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: PRO, prompt: 'tall', ...body }),
      });
    expect((await post({ seconds: 4, size: '720x1280', boost: 2 })).status).toBe(200);
    const standardId = [...up.videos.keys()].at(-1)!;
    expect(before - (await fx.quota(fx.user.id))).toBe((4 + 2.4) * usd);
    // What the expression cannot price is refused before the provider hears of it.
    const sent = up.requests.length;
    const refused = await post({ seconds: 4, size: '720x1280', boost: 'lots' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: 'model_price_error',
      message: expect.stringMatching(/the billing expression of this model cannot price the task: \* needs a number, got string/),
    });
    expect(up.requests.length).toBe(sent);
    expect(before - (await fx.quota(fx.user.id))).toBe(6.4 * usd);

    // A later price change does not reach tasks in flight: the high one settles at US$ 0.5 for the 4 s rendered.
    await fx.setOption('billing_setting.billing_expr', { [PRO]: expr(5) });
    up.update(highId, { status: 'completed', progress: 100, seconds: '4' });
    up.update(standardId, { status: 'completed', progress: 100 });
    expect((await poll())?.tasks?.succeeded).toBe(2);
    expect(before - (await fx.quota(fx.user.id))).toBe((2 + 2.4) * usd);

    const rows = await fx.logCount({ modelName: PRO, type: 2 }, 2);
    const others = rows.map((row) => (typeof row.other === 'string' ? JSON.parse(row.other) : row.other));
    expect(others).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          billing_mode: 'tiered_expr',
          matched_tier: 'high',
          task_usage: { seconds: 8, resolution: '1024p' },
          request_rules: [{ cond: 'header("x-rush") == "yes"', multiplier: 2, matched: false }],
        }),
        expect.objectContaining({ billing_mode: 'tiered_expr', matched_tier: 'standard', task_usage: { seconds: 4, resolution: '720p' } }),
      ]),
    );
  });

  it('takes a reference image uploaded as multipart and sends it on as a file', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const video = await client.videos.create({
      model: MODEL,
      prompt: 'animate the still',
      seconds: '4',
      input_reference: await toFile(png, 'still.png', { type: 'image/png' }),
    });
    expect(video.status).toBe('queued');
    expect(up.requests.at(-1)!.body).toMatchObject({
      model: MODEL,
      prompt: 'animate the still',
      seconds: '4',
      input_reference: { type: 'image/png', size: png.length },
    });
    const notImage = await fetch(`${fx.gw.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: (() => {
        const form = new FormData();
        form.append('model', MODEL);
        form.append('prompt', 'x');
        form.append('input_reference', new Blob(['plain text'], { type: 'text/plain' }), 'notes.txt');
        return form;
      })(),
    });
    expect(notImage.status).toBe(400);
    expect(((await notImage.json()) as any).error.message).toBe('input_reference must be an image or a video');
  });

  it('refunds a failed video once and charges nothing for a refused one', async () => {
    const before = await fx.quota(fx.user.id);
    const res = await fetch(`${fx.gw.url}/v1/video/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: MODEL, prompt: 'will fail' }),
    });
    const created = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(await fx.quota(fx.user.id)).toBe(before - 4 * PER_SECOND);
    const upstreamId = [...up.videos.keys()].at(-1)!;
    up.update(upstreamId, { status: 'failed', error: { message: 'render crashed', code: 'internal' } });
    expect((await poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await poll();
    expect(await fx.quota(fx.user.id)).toBe(before);
    const read = await client.videos.retrieve(created.id);
    expect(read.status).toBe('failed');
    expect(read.error?.message).toBe('render crashed');

    await expect(client.videos.create({ model: MODEL, prompt: 'refuse me' })).rejects.toMatchObject({ status: 400 });
    const missing = await fetch(`${fx.gw.url}/v1/videos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: MODEL }),
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).message).toBe('field prompt is required');
    await expect(client.videos.retrieve('task_missing')).rejects.toMatchObject({ status: 404 });
    expect(await fx.quota(fx.user.id)).toBe(before);
  });

  it("never shows the channel's key: not in a refusal, a failure reason or the video's bytes", async () => {
    const noKey = (text: string) => {
      for (let i = 0; i + 8 <= KEY.length; i++) expect(text, `leaks ${KEY.slice(i, i + 8)}`).not.toContain(KEY.slice(i, i + 8));
    };
    const refused = await fetch(`${fx.gw.url}/v1/videos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: MODEL, prompt: 'quote my key' }),
    });
    expect(refused.status).toBe(400);
    const refusal = await refused.text();
    expect(refusal).toContain('the key *** may not use this model');
    noKey(refusal);

    const failing = await client.videos.create({ model: MODEL, prompt: 'fails quoting the key' });
    up.update([...up.videos.keys()].at(-1)!, { status: 'failed', error: { message: `quota of ${KEY} exhausted`, code: 'quota' } });
    await poll();
    const failed = await fetch(`${fx.gw.url}/v1/videos/${failing.id}`, { headers: { authorization: `Bearer ${key}` } });
    const failure = await failed.text();
    expect(JSON.parse(failure).error.message).toBe('quota of *** exhausted');
    noKey(failure);
    const logged = await fx.user.client.get(`/api/task/self?task_id=${failing.id}`);
    noKey(JSON.stringify(logged.body));

    const done = await client.videos.create({ model: MODEL, prompt: 'bytes quoting the key' });
    const upstreamId = [...up.videos.keys()].at(-1)!;
    up.setContent(upstreamId, Buffer.concat([VIDEO_BYTES, Buffer.from(` ${KEY} `), VIDEO_BYTES]));
    up.update(upstreamId, { status: 'completed', progress: 100, completed_at: Math.floor(Date.now() / 1000) });
    await poll();
    const content = await client.videos.downloadContent(done.id);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(Buffer.concat([VIDEO_BYTES, Buffer.from(' *** '), VIDEO_BYTES]));
  });
});
