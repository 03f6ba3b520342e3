import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeJimeng, type FakeJimeng } from '../fake-upstream/fake-jimeng.js';
import { testDatabases } from '../support/databases.js';
import { startTaskSuite, type TaskSuite } from './task-suite.js';

const MODEL = 'jimeng_v30';
/** $0.3 per call. */
const PRICE = 150_000;

describe.each(testDatabases())('Jimeng video relay on %s', (kind) => {
  let t: TaskSuite;
  let jimeng: FakeJimeng;
  const lastTask = () => [...jimeng.tasks.keys()].at(-1)!;

  beforeAll(async () => {
    jimeng = await startFakeJimeng('jimeng-ak', 'jimeng-sk');
    t = await startTaskSuite(kind, {
      channel: { type: 51, key: 'jimeng-ak|jimeng-sk', base_url: jimeng.url, models: `${MODEL},jimeng_vgfm_t2v_l20` },
      prices: { [MODEL]: 0.3, jimeng_vgfm_t2v_l20: 0.3 },
    });
  });
  afterAll(async () => {
    await t?.fx.close();
    await jimeng?.close();
  });

  it('signs the submit and the polls, picks the 3.0 variant from the images, and finishes with the video URL', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    const res = await t.call('/v1/video/generations', {
      model: MODEL,
      prompt: 'a paper crane',
      image: 'https://cdn.example/crane.png',
      duration: 10,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'video', status: 'queued' });
    const sent = jimeng.requests.at(-1)!;
    expect(sent).toMatchObject({ action: 'CVSync2AsyncSubmitTask', signatureOk: true });
    expect(sent.body).toMatchObject({
      req_key: 'jimeng_i2v_first_v30',
      prompt: 'a paper crane',
      frames: 241,
      image_urls: ['https://cdn.example/crane.png'],
    });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - PRICE);

    jimeng.update(lastTask(), { status: 'generating' });
    await t.poll();
    expect(jimeng.requests.at(-1)).toMatchObject({
      action: 'CVSync2AsyncGetResult',
      signatureOk: true,
      body: { req_key: 'jimeng_i2v_first_v30', task_id: lastTask() },
    });
    expect((await t.call(`/v1/video/generations/${res.body.id}`)).body.status).toBe('in_progress');
    jimeng.update(lastTask(), { status: 'done', video_url: 'https://volc.example/crane.mp4' });
    expect((await t.poll())?.tasks?.succeeded).toBe(1);
    expect((await t.call(`/v1/video/generations/${res.body.id}`)).body).toMatchObject({
      status: 'completed',
      metadata: { url: 'https://volc.example/crane.mp4' },
    });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before - PRICE);
  });

  it("serves Jimeng's own API at /jimeng/: submit by req_key, then the result in Jimeng's shape", async () => {
    const submitted = await t.call('/jimeng/?Action=CVSync2AsyncSubmitTask&Version=2022-08-31', {
      req_key: 'jimeng_vgfm_t2v_l20',
      prompt: 'rain on a window',
      aspect_ratio: '9:16',
    });
    expect(submitted.status).toBe(200);
    expect(jimeng.requests.at(-1)!.body).toMatchObject({ req_key: 'jimeng_vgfm_t2v_l20', aspect_ratio: '9:16', frames: 121 });
    const id = submitted.body.id as string;
    const pending = await t.call('/jimeng/?Action=CVSync2AsyncGetResult&Version=2022-08-31', {
      req_key: 'jimeng_vgfm_t2v_l20',
      task_id: id,
    });
    expect(pending.body).toMatchObject({ code: 10000, data: { status: 'in_queue' } });
    jimeng.update(lastTask(), { status: 'done', video_url: 'https://volc.example/rain.mp4' });
    await t.poll();
    const done = await t.call('/jimeng/?Action=CVSync2AsyncGetResult&Version=2022-08-31', { task_id: id });
    expect(done.body).toMatchObject({ code: 10000, data: { status: 'done', video_url: 'https://volc.example/rain.mp4' } });
    expect((await t.call('/jimeng/?Action=Nope', {})).status).toBe(400);
    expect((await t.call('/jimeng/', {})).status).toBe(400);
    expect((await t.call('/jimeng/?Action=CVSync2AsyncGetResult', {})).status).toBe(400);
  });

  it('refunds a task Jimeng lost, once, and charges nothing for a refused prompt', async () => {
    const before = await t.fx.quota(t.fx.user.id);
    await t.call('/v1/video/generations', { model: MODEL, prompt: 'lost' });
    expect(jimeng.requests.at(-1)!.body.req_key).toBe('jimeng_t2v_v30');
    jimeng.update(lastTask(), { status: 'expired' });
    expect((await t.poll())?.tasks).toMatchObject({ failed: 1, refunded: 1 });
    await t.poll();
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
    const refused = await t.call('/v1/video/generations', { model: MODEL, prompt: 'refuse me' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: '50411', message: 'Pre Text Risk Not Pass' });
    expect(await t.fx.quota(t.fx.user.id)).toBe(before);
  });
});
