import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMidjourney, type FakeMidjourney } from '../fake-upstream/fake-midjourney.js';
import { startFakeSuno, type FakeSuno } from '../fake-upstream/fake-suno.js';
import { startFakeVideo, type FakeVideoServer } from '../fake-upstream/fake-video.js';
import { testDatabases } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

/** Random-looking as real keys are (answers are cleared of any 8-character run of a channel's key). */
const SUNO_KEY = 'sk-suno-H4wQ8zKp2VnR6tLx';
const VIDEO_KEY = 'sk-vid-P9mZ2rT6yW1qX8cV';
const MJ_SECRET = 'mj-secret-J5kD8sF2gL0a';
/** Per-call prices at group ratio 1 (QuotaPerUnit 500000): suno_music 0.1, mj_imagine 0.1, sora-2 0.1 per second. */
const MUSIC = 50_000;
const IMAGINE = 50_000;
const PER_SECOND = 50_000;
const VIP = 2;

/**
 * new-api's `auto` group on the task routes: a submit is routed as a chat request is (the first auto group
 * with a channel; RetryTimes; with the token's cross_group_retry, the next auto group once a group's retries
 * are spent) and recorded, logged and billed in the group that served it. Midjourney submits are never retried.
 */
describe.each(testDatabases())('task submits in the auto group on %s', (kind) => {
  let fx: RelayFixture;
  let sunoDown: FakeSuno;
  let sunoUp: FakeSuno;
  let video: FakeVideoServer;
  let mjDown: FakeMidjourney;
  let mjUp: FakeMidjourney;
  let cross: { id: number; key: string };
  let stay: { id: number; key: string };
  const submits = (suno: FakeSuno) => suno.requests.filter((r) => r.path.startsWith('/suno/submit/')).length;
  const mjSubmits = (mj: FakeMidjourney) => mj.requests.filter((r) => r.path.startsWith('/mj/submit/')).length;

  const call = (key: string, route: string, body: unknown) =>
    fetch(`${fx.gw.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const taskRow = async (taskId: string) => (await fx.ds.getRepository('tasks').findOneBy({ taskId })) as any;
  const taskLog = async (taskId: string) =>
    (await fx.logs({ userId: fx.user.id, type: 2 })).find((row: any) => JSON.parse(row.other || '{}').task_id === taskId);
  const balances = async (token: { id: number }) => ({
    user: await fx.quota(fx.user.id),
    token: (await fx.tokenRow(token.id)).remainQuota,
  });

  beforeAll(async () => {
    sunoDown = await startFakeSuno(SUNO_KEY);
    sunoUp = await startFakeSuno(SUNO_KEY);
    video = await startFakeVideo(VIDEO_KEY);
    mjDown = await startFakeMidjourney(MJ_SECRET);
    mjUp = await startFakeMidjourney(MJ_SECRET);
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    await fx.setOption('GroupRatio', { default: 1, vip: VIP });
    await fx.setOption('UserUsableGroups', { default: '默认分组', vip: 'vip分组', auto: '自动选择' });
    await fx.setOption('AutoGroups', ['default', 'vip']);
    await fx.setOption('ModelPrice', { 'sora-2': 0.1, suno_music: 0.1, mj_imagine: 0.1 });
    await fx.setOption('RetryTimes', '1');
    cross = await fx.token({ group: 'auto', cross_group_retry: true, remain_quota: 5_000_000 });
    stay = await fx.token({ group: 'auto', cross_group_retry: false, remain_quota: 5_000_000 });
  });
  afterAll(async () => {
    await fx?.close();
    for (const server of [sunoDown, sunoUp, video, mjDown, mjUp]) await server?.close();
  });

  it('retries a failed Suno submit in the next auto group with cross_group_retry, and records and bills it there', async () => {
    const def = await fx.channel({ type: 36, key: SUNO_KEY, base_url: sunoDown.url, models: 'suno_music', group: 'default' });
    const vip = await fx.channel({ type: 36, key: SUNO_KEY, base_url: sunoUp.url, models: 'suno_music', group: 'vip' });
    sunoDown.nextSubmit({ status: 500, body: { code: 'error', message: 'default is down', data: null } });
    const before = await balances(cross);

    const res = await call(cross.key, '/suno/submit/music', { prompt: 'a song about foxes' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.code).toBe('success');
    expect([submits(sunoDown), submits(sunoUp)]).toEqual([1, 1]);
    const taskId = res.body.data as string;

    // Recorded in the group that served it, on its channel, at its ratio.
    const row = await taskRow(taskId);
    expect([row.group, row.channelId, Number(row.quota)]).toEqual(['vip', vip, MUSIC * VIP]);
    expect(row.privateData.billing_context).toMatchObject({ group_ratio: VIP, per_call_quota: MUSIC * VIP });
    const log = await taskLog(taskId);
    expect([log.group, log.channelId, Number(log.quota)]).toEqual(['vip', vip, MUSIC * VIP]);
    const other = JSON.parse(log.other);
    expect(other.group_ratio).toBe(VIP);
    expect(other.admin_info.use_channel).toEqual([String(def), String(vip)]);
    // Charged once, at vip's price: the reservation made at default's price was settled to it.
    expect(await balances(cross)).toEqual({ user: before.user - MUSIC * VIP, token: before.token - MUSIC * VIP });
    const own = await fx.user.client.get(`/api/task/self?p=0&page_size=10&task_id=${taskId}`);
    expect(own.body.data[0]).toMatchObject({ task_id: taskId, group: 'vip', quota: MUSIC * VIP });
  });

  it('keeps a Suno submit in its group without cross_group_retry, and gives the reservation back', async () => {
    const before = await balances(stay);
    const [down, up] = [submits(sunoDown), submits(sunoUp)];
    const tasks = await fx.ds.getRepository('tasks').count();

    const res = await call(stay.key, '/suno/submit/music', { prompt: 'a song about owls' });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ code: 'error', message: 'default is down' });
    expect([submits(sunoDown) - down, submits(sunoUp) - up]).toEqual([1, 0]);
    expect(await balances(stay)).toEqual(before);
    expect(await fx.ds.getRepository('tasks').count()).toBe(tasks);
  });

  it('retries by new-api’s task rules: a 400 is final, and RetryTimes 0 retries nothing', async () => {
    const before = await balances(cross);
    const up = submits(sunoUp);
    sunoDown.nextSubmit({ status: 400, body: { code: 'bad_prompt', message: 'the prompt was refused', data: null } });
    const refused = await call(cross.key, '/suno/submit/music', { prompt: 'x' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'bad_prompt', message: 'the prompt was refused' });
    expect(submits(sunoUp)).toBe(up);

    sunoDown.nextSubmit({ status: 502, body: { code: 'error', message: 'default is down', data: null } });
    await fx.setOption('RetryTimes', '0');
    try {
      expect((await call(cross.key, '/suno/submit/music', { prompt: 'x' })).status).toBe(502);
      expect(submits(sunoUp)).toBe(up);
    } finally {
      await fx.setOption('RetryTimes', '1');
    }
    expect(await balances(cross)).toEqual(before);
  });

  it('moves /v1/video/generations to the next auto group after a refused key, billed per second at that group’s ratio', async () => {
    // The default group's channel sends a key the provider refuses (401): new-api retries that on another channel.
    const def = await fx.channel({ type: 55, key: 'sk-vid-wrong-Z7xC4vB1nM3q', base_url: video.url, models: 'sora-2', group: 'default' });
    const vip = await fx.channel({ type: 55, key: VIDEO_KEY, base_url: video.url, models: 'sora-2', group: 'vip' });
    const before = await balances(cross);

    const res = await call(cross.key, '/v1/video/generations', { model: 'sora-2', prompt: 'a fox in the snow', seconds: '4' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const taskId = res.body.id as string;
    expect(video.requests.filter((r) => r.path === '/v1/videos').map((r) => r.headers.authorization)).toEqual([
      'Bearer sk-vid-wrong-Z7xC4vB1nM3q',
      `Bearer ${VIDEO_KEY}`,
    ]);
    const row = await taskRow(taskId);
    expect([row.group, row.channelId, Number(row.quota)]).toEqual(['vip', vip, 4 * PER_SECOND * VIP]);
    const log = await taskLog(taskId);
    expect([log.group, log.channelId, JSON.parse(log.other).group_ratio]).toEqual(['vip', vip, VIP]);
    expect(JSON.parse(log.other).admin_info.use_channel).toEqual([String(def), String(vip)]);
    expect(await balances(cross)).toEqual({ user: before.user - 4 * PER_SECOND * VIP, token: before.token - 4 * PER_SECOND * VIP });

    // Without cross_group_retry the refused key is the answer, and nothing is charged.
    const stayBefore = await balances(stay);
    const stayed = await call(stay.key, '/v1/video/generations', { model: 'sora-2', prompt: 'a fox at night', seconds: '4' });
    expect(stayed.status).toBe(401);
    expect(video.requests.filter((r) => r.path === '/v1/videos').at(-1)!.headers.authorization).toBe('Bearer sk-vid-wrong-Z7xC4vB1nM3q');
    expect(await balances(stay)).toEqual(stayBefore);
  });

  it('routes a Midjourney submit to the first auto group with a channel and never retries it (new-api)', async () => {
    const vip = await fx.channel({ type: 2, key: MJ_SECRET, base_url: mjUp.url, models: 'mj_imagine', group: 'vip' });
    const before = await balances(cross);
    const served = await call(cross.key, '/mj/submit/imagine', { prompt: 'a red fox' });
    expect(served.status).toBe(200);
    expect(served.body.code).toBe(1);
    const log = (await fx.logs({ userId: fx.user.id, type: 2, modelName: 'mj_imagine' })).at(-1);
    expect([log.group, log.channelId, Number(log.quota), JSON.parse(log.other).group_ratio]).toEqual(['vip', vip, IMAGINE * VIP, VIP]);
    expect(await balances(cross)).toEqual({ user: before.user - IMAGINE * VIP, token: before.token - IMAGINE * VIP });

    // A channel in the earlier auto group now takes the submit; its failure is the answer, even with cross_group_retry.
    await fx.channel({ type: 2, key: MJ_SECRET, base_url: mjDown.url, models: 'mj_imagine', group: 'default' });
    mjDown.nextSubmit(() => ({ status: 500, body: { code: 4, description: 'default is down', result: '' } }));
    const up = mjSubmits(mjUp);
    const failed = await call(cross.key, '/mj/submit/imagine', { prompt: 'a blue fox' });
    expect(failed.status).toBe(500);
    expect([mjSubmits(mjDown), mjSubmits(mjUp) - up]).toEqual([1, 0]);
    expect(await balances(cross)).toEqual({ user: before.user - IMAGINE * VIP, token: before.token - IMAGINE * VIP });
  });
});
