import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeVeo, VEO_BYTES, type FakeVeo } from '../fake-upstream/fake-veo.js';
import { testDatabases } from '../support/databases.js';
import { startTaskSuite, type TaskSuite } from './task-suite.js';

const MODEL = 'veo-3.0-generate-001';
/** $0.4 per second: 200000 quota per second. */
const PER_SECOND = 200_000;

describe.each(testDatabases())('Veo video on a Gemini channel on %s', (kind) => {
  let t: TaskSuite;
  let veo: FakeVeo;
  let client: OpenAI;
  const lastOp = () => [...veo.operations.keys()].at(-1)!;

  beforeAll(async () => {
    veo = await startFakeVeo('gemini-key');
    t = await startTaskSuite(kind, {
      channel: { type: 24, key: 'gemini-key', base_url: veo.url, models: MODEL },
      prices: { [MODEL]: 0.4 },
      quota: 50_000_000,
    });
    client = new OpenAI({ apiKey: t.key, baseURL: `${t.fx.gw.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await t?.fx.close();
    await veo?.close();
  });

  it('starts a long-running prediction, bills per second, polls the operation and serves the video with the channel key', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const res = await t.call('/v1/video/generations', {
      model: MODEL,
      prompt: 'a whale breaching at sunrise',
      duration: 6,
      size: '1280x720',
      metadata: { negativePrompt: 'text, watermark', personGeneration: 'allow_all' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'video', status: 'queued', model: MODEL });
    const sent = veo.requests.at(-1)!;
    expect(sent.path).toBe(`/v1beta/models/${MODEL}:predictLongRunning`);
    expect(sent.body).toEqual({
      instances: [{ prompt: 'a whale breaching at sunrise' }],
      parameters: { aspectRatio: '16:9', negativePrompt: 'text, watermark', personGeneration: 'allow_all', durationSeconds: 6 },
    });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - 6 * PER_SECOND);

    await t.poll();
    expect(veo.requests.at(-1)!.path).toBe(`/v1beta/${lastOp()}`);
    expect((await client.videos.retrieve(res.body.id)).status).toBe('in_progress');
    veo.finish(lastOp());
    expect((await t.poll())?.tasks?.succeeded).toBe(1);
    expect((await client.videos.retrieve(res.body.id)).status).toBe('completed');
    const content = await client.videos.downloadContent(res.body.id);
    expect(JSON.parse(Buffer.from(await content.arrayBuffer()).toString('utf8'))).toEqual(VEO_BYTES);
    expect(veo.requests.at(-1)!.headers['x-goog-api-key']).toBe('gemini-key');
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - 6 * PER_SECOND);
  });

  it("never sends the channel key to a host the provider's answer names: a private one is refused (threats S2, S5)", async () => {
    const canary: { path: string; key: unknown }[] = [];
    const other = createServer((req, res) => {
      canary.push({ path: req.url ?? '', key: req.headers['x-goog-api-key'] });
      res.end('INTERNAL BYTES');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const res = await t.call('/v1/video/generations', { model: MODEL, prompt: 'point elsewhere' });
      const uri = `http://127.0.0.1:${(other.address() as AddressInfo).port}/secret`;
      veo.update(lastOp(), { done: true, response: { generateVideoResponse: { generatedSamples: [{ video: { uri } }] } } });
      expect((await t.poll())?.tasks?.succeeded).toBe(1);
      const content = await t.call(`/v1/videos/${res.body.id}/content`);
      expect(content.status).toBe(403);
      expect(JSON.stringify(content.body)).not.toContain('INTERNAL');
      expect(JSON.stringify(content.body)).toContain('refused: URL points to a private or reserved address');
      expect(canary).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('refunds an operation that failed or came back without a video, once', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const failed = await t.call('/v1/video/generations', { model: MODEL, prompt: 'first' });
    veo.update(lastOp(), { done: true, error: { code: 3, message: 'Veo could not generate this video' } });
    const filtered = await t.call('/v1/video/generations', { model: MODEL, prompt: 'second' });
    veo.update(lastOp(), { done: true, response: { generateVideoResponse: { raiMediaFilteredCount: 1 } } });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - 16 * PER_SECOND);
    expect((await t.poll())?.tasks).toMatchObject({ failed: 2, refunded: 2 });
    await t.poll();
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
    expect((await t.call(`/v1/video/generations/${failed.body.id}`)).body.error.message).toBe('Veo could not generate this video');
    expect((await t.call(`/v1/video/generations/${filtered.body.id}`)).body.error.message).toBe('the provider returned no video');
    expect((await t.call(`/v1/videos/${filtered.body.id}/content`)).status).toBe(400);
    const refused = await t.call('/v1/video/generations', { model: MODEL, prompt: 'refuse me' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('The prompt could not be submitted');
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
  });
});
