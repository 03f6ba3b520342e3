import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogService } from '@gw/log';
import { TaskPoller } from '@gw/task';
import { startFakeMidjourney, PNG, type FakeMidjourney } from '../fake-upstream/fake-midjourney.js';
import { testDatabases } from '../support/databases.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { startRelayFixture, waitFor, type RelayFixture } from './relay-fixture.js';

const SECRET = 'mj-upstream-secret';
/** Default prices (new-api): mj_imagine 0.1, mj_upscale 0.05; QuotaPerUnit 500000, group ratio 1. */
const IMAGINE = 50_000;
const UPSCALE = 25_000;

describe.each(testDatabases())('Midjourney-proxy relay, polling and refunds on %s', (kind) => {
  let fx: RelayFixture;
  let mj: FakeMidjourney;
  let key: string;
  let tokenId: number;
  let channelId: number;

  const submit = (route: string, body: unknown, headers: Record<string, string> = { 'mj-api-secret': key }, gw: TestGateway = fx.gw) =>
    fetch(`${gw.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const get = (route: string, gw: TestGateway = fx.gw) =>
    fetch(`${gw.url}${route}`, { headers: { authorization: `Bearer ${key}` } }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as any,
    }));
  const poll = (gw: TestGateway = fx.gw) => gw.gateway.app.get(TaskPoller).runOnce();
  const refundLogs = async (...others: TestGateway[]) => {
    for (const gw of [fx.gw, ...others]) await gw.gateway.app.get(LogService).flush();
    const rows = await fx.ds.getRepository('logs').find({ where: { userId: fx.user.id, type: 4 } });
    return rows.filter((row: any) => String(row.other).includes('task_refund'));
  };

  beforeAll(async () => {
    mj = await startFakeMidjourney(SECRET);
    // The interval stays out of the way (an hour); passes are run by the tests.
    fx = await startRelayFixture(kind, { TASK_POLL_INTERVAL: '3600' });
    channelId = await fx.channel({
      type: 2,
      key: SECRET,
      base_url: mj.url,
      models: 'mj_imagine,mj_upscale,mj_variation,mj_describe,swap_face',
    });
    const token = await fx.token({ remain_quota: 5_000_000 });
    key = token.key;
    tokenId = token.id;
  });
  afterAll(async () => {
    await fx?.close();
    await mj?.close();
  });

  it('submits an imagine, charges the per-call price once, and polls it to success', async () => {
    const before = await fx.userRow(fx.user.id);
    const tokenBefore = await fx.tokenRow(tokenId);
    const res = await submit('/mj/submit/imagine', {
      prompt: 'a red fox --fast',
      notifyHook: 'https://client.example/hook',
      accountFilter: { x: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(1);
    const mjId = res.body.result as string;
    expect(mj.tasks.has(mjId)).toBe(true);

    // Forwarded with the channel's secret; notifyHook and accountFilter dropped (both options off by default).
    const forwarded = mj.requests.find((r) => r.path === '/mj/submit/imagine')!;
    expect(forwarded.headers['mj-api-secret']).toBe(SECRET);
    expect(forwarded.body.notifyHook).toBeUndefined();
    expect(forwarded.body.accountFilter).toBeUndefined();
    expect(forwarded.body.prompt).toBe('a red fox --fast');

    const after = await fx.userRow(fx.user.id);
    expect(before.quota - after.quota).toBe(IMAGINE);
    expect(after.usedQuota - before.usedQuota).toBe(IMAGINE);
    expect(after.requestCount - before.requestCount).toBe(1);
    expect(tokenBefore.remainQuota - (await fx.tokenRow(tokenId)).remainQuota).toBe(IMAGINE);
    const consume = await fx.logCount({ userId: fx.user.id, modelName: 'mj_imagine', type: 2 }, 1);
    expect(consume[0].quota).toBe(IMAGINE);
    expect(consume[0].channelId).toBe(channelId);

    let fetched = await get(`/mj/task/${mjId}/fetch`);
    expect(fetched.body).toMatchObject({ id: mjId, action: 'IMAGINE', progress: '0%', prompt: 'a red fox --fast' });

    mj.update(mjId, { status: 'IN_PROGRESS', progress: '45%', startTime: Date.now() });
    const pass = await poll();
    expect(pass?.midjourney?.updated).toBeGreaterThanOrEqual(1);
    fetched = await get(`/mj/task/${mjId}/fetch`);
    expect(fetched.body).toMatchObject({ status: 'IN_PROGRESS', progress: '45%' });

    mj.update(mjId, {
      status: 'SUCCESS',
      progress: '100%',
      imageUrl: `${mj.url}/images/${mjId}.png`,
      finishTime: Date.now(),
      buttons: [{ customId: 'MJ::JOB::upsample::1::abc', label: 'U1' }],
    });
    expect((await poll())?.midjourney?.succeeded).toBe(1);
    fetched = await get(`/mj/task/${mjId}/fetch`);
    expect(fetched.body).toMatchObject({ status: 'SUCCESS', progress: '100%', imageUrl: `${mj.url}/images/${mjId}.png` });
    expect(fetched.body.buttons[0].label).toBe('U1');
    // The final charge is the submit charge: success takes nothing more.
    expect((await fx.userRow(fx.user.id)).quota).toBe(after.quota);

    const listed = await get(`/mj/task/list-by-condition`);
    expect(listed.status).toBe(404);
    const byCondition = await submit('/mj/task/list-by-condition', { ids: [mjId, 'not-mine'] });
    expect(byCondition.body.map((t: any) => t.id)).toEqual([mjId]);

    // A follow-up action goes to the task's channel and is priced as its own model.
    const upscale = await submit('/mj/submit/change', { taskId: mjId, action: 'UPSCALE', index: 1 }, { authorization: `Bearer ${key}` });
    expect(upscale.body.code).toBe(1);
    expect((await fx.userRow(fx.user.id)).quota).toBe(after.quota - UPSCALE);
    const simple = await submit('/mj-fast/mj/submit/simple-change', { content: `${mjId} V2` });
    expect(simple.body.code).toBe(1);
    expect(mj.requests.at(-1)!.path).toBe('/mj/submit/simple-change');

    // The console's drawing log: own rows, and the admin view with its channel filter.
    const own = await fx.user.client.get(`/api/mj/self?p=1&page_size=10&mj_id=${mjId}`);
    expect(own.body.success).toBe(true);
    expect(own.body.data.items).toHaveLength(1);
    expect(own.body.data.items[0]).toMatchObject({
      mj_id: mjId,
      status: 'SUCCESS',
      quota: IMAGINE,
      channel_id: channelId,
      action: 'IMAGINE',
    });
    expect(own.body.data.items[0].token_id).toBeUndefined();
    const all = await fx.root.get(`/api/mj/?channel_id=${channelId}&page_size=100`);
    expect(all.body.data.total).toBeGreaterThanOrEqual(3);
    expect((await fx.root.get(`/api/mj/?channel_id=${channelId + 999}`)).body.data.total).toBe(0);
    expect((await fx.user.client.get('/api/mj/')).body.success).toBe(false);
    expect((await fx.user.client.get('/api/mj/self?start_timestamp=abc')).body).toMatchObject({ success: false });
  });

  it('serves the image through the gateway when MjForwardUrlEnabled', async () => {
    const res = await submit('/mj/submit/imagine', { prompt: 'forwarded' });
    const mjId = res.body.result as string;
    mj.update(mjId, { status: 'SUCCESS', progress: '100%', imageUrl: `${mj.url}/images/${mjId}.png` });
    await poll();
    await fx.setOption('MjForwardUrlEnabled', 'true');
    await fx.setOption('ServerAddress', fx.gw.url);
    await fx.setOption('AllowPrivateOutboundUrls', 'true');
    try {
      const fetched = await get(`/mj/task/${mjId}/fetch`);
      expect(fetched.body.imageUrl).toBe(`${fx.gw.url}/mj/image/${mjId}`);
      const image = await fetch(fetched.body.imageUrl);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG);
      expect((await fetch(`${fx.gw.url}/mj/image/unknown-id`)).status).toBe(400);
    } finally {
      await fx.setOption('MjForwardUrlEnabled', 'false');
    }
  });

  it('refunds a failed task exactly once, whatever the number of passes', async () => {
    const before = await fx.quota(fx.user.id);
    const tokenBefore = await fx.tokenRow(tokenId);
    const refundsBefore = (await refundLogs()).length;
    const res = await submit('/mj/submit/imagine', { prompt: 'doomed' });
    const mjId = res.body.result as string;
    expect(await fx.quota(fx.user.id)).toBe(before - IMAGINE);

    mj.update(mjId, { status: 'FAILURE', progress: '0%', failReason: 'banned prompt' });
    const first = await poll();
    expect(first?.midjourney).toMatchObject({ failed: 1, refunded: 1 });
    await poll();
    await poll();
    expect(await fx.quota(fx.user.id)).toBe(before);
    expect((await fx.tokenRow(tokenId)).remainQuota).toBe(tokenBefore.remainQuota);
    const fetched = await get(`/mj/task/${mjId}/fetch`);
    expect(fetched.body).toMatchObject({ status: 'FAILURE', progress: '100%', failReason: 'banned prompt' });
    expect((await refundLogs()).length).toBe(refundsBefore + 1);
  });

  it('charges nothing for a refused submit and rewrites duplicate (21) and queued (22) answers to 1', async () => {
    const before = await fx.quota(fx.user.id);
    mj.nextSubmit(() => ({ body: { code: 24, description: 'may contain sensitive words', result: '', properties: { bannedWord: 'x' } } }));
    const refused = await submit('/mj/submit/imagine', { prompt: 'x' });
    expect(refused.body.code).toBe(24);
    expect(await fx.quota(fx.user.id)).toBe(before);

    mj.nextSubmit((id) => ({
      body: {
        code: 21,
        description: 'task exists',
        result: `dup-${id}`,
        properties: { status: 'SUCCESS', imageUrl: 'https://cdn.example/x.png' },
      },
    }));
    const existing = await submit('/mj/submit/imagine', { prompt: 'again' });
    expect(existing.body.code).toBe(1);
    const row = await get(`/mj/task/${existing.body.result}/fetch`);
    expect(row.body).toMatchObject({ status: 'SUCCESS', progress: '100%', imageUrl: 'https://cdn.example/x.png' });

    mj.nextSubmit((id) => ({ body: { code: 22, description: 'queued, 1 ahead', result: `q-${id}`, properties: { numberOfQueues: 1 } } }));
    const queued = await submit('/mj/submit/imagine', { prompt: 'queued' });
    expect(queued.body.code).toBe(1);
    mj.nextSubmit(undefined);
    expect(await fx.quota(fx.user.id)).toBe(before - 2 * IMAGINE);

    mj.nextSubmit(() => ({ status: 500, body: { code: 5, description: 'upstream broke' } }));
    const broken = await submit('/mj/submit/imagine', { prompt: 'broken' });
    mj.nextSubmit(undefined);
    expect(broken.status).toBe(500);
    expect(await fx.quota(fx.user.id)).toBe(before - 2 * IMAGINE);
  });

  it('answers bad requests with new-api codes and never charges them', async () => {
    const before = await fx.quota(fx.user.id);
    expect((await submit('/mj/submit/imagine', { prompt: '' })).body).toMatchObject({ code: 4, description: 'prompt_is_required' });
    expect((await submit('/mj/submit/change', { taskId: 'nope', action: 'UPSCALE', index: 1 })).body).toMatchObject({
      code: 4,
      description: 'task_not_found',
    });
    expect((await submit('/mj/submit/simple-change', { content: '123 X9' })).body).toMatchObject({
      code: 4,
      description: 'content_parse_failed',
    });
    expect((await submit('/mj/submit/unknown', {})).body).toMatchObject({ code: 4 });
    const noKey = await submit('/mj/submit/imagine', { prompt: 'x' }, {});
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.message).toMatch(/key/i);
    const badJson = await fetch(`${fx.gw.url}/mj/submit/imagine`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mj-api-secret': key },
      body: '{bad',
    });
    expect(badJson.status).toBe(400);
    expect((await get('/mj/task/missing/fetch')).body).toMatchObject({ code: 4, description: 'task_no_found' });
    expect(await fx.quota(fx.user.id)).toBe(before);
  });

  it('swaps faces at the swap_face price and checks both images are given', async () => {
    const before = await fx.quota(fx.user.id);
    expect((await submit('/mj/insight-face/swap', { sourceBase64: 'a' })).body).toMatchObject({
      code: 4,
      description: 'sour_base64_and_target_base64_is_required',
    });
    const swap = await submit('/mj/insight-face/swap', {
      sourceBase64: 'data:image/png;base64,AA',
      targetBase64: 'data:image/png;base64,BB',
    });
    expect(swap.body.code).toBe(1);
    expect(mj.requests.at(-1)!.path).toBe('/mj/insight-face/swap');
    expect(await fx.quota(fx.user.id)).toBe(before - UPSCALE);
    const row = (await fx.user.client.get(`/api/mj/self?mj_id=${swap.body.result}`)).body.data.items[0];
    expect(row).toMatchObject({ action: 'SWAP_FACE', prompt: 'InsightFace', quota: UPSCALE });
  });

  it('auto-disables a channel whose proxy has no account left (code 3), under the auto-disable rules', async () => {
    const blendChannel = await fx.channel({ type: 2, key: SECRET, base_url: mj.url, models: 'mj_blend' });
    await fx.setOption('AutomaticDisableChannelEnabled', 'true');
    await fx.setOption('ChannelDisableFailureCount', '1');
    const before = await fx.quota(fx.user.id);
    mj.nextSubmit(() => ({ body: { code: 3, description: 'No available account instance', result: '' } }));
    try {
      const res = await submit('/mj/submit/blend', { base64Array: ['a', 'b'] });
      expect(res.body.code).toBe(3);
      await waitFor(async () => {
        const channel = (await fx.root.get(`/api/channel/${blendChannel}`)).body.data;
        return channel.status === 3 ? channel : undefined;
      }, 'the channel to be auto-disabled');
    } finally {
      mj.nextSubmit(undefined);
      await fx.setOption('AutomaticDisableChannelEnabled', 'false');
    }
    expect(await fx.quota(fx.user.id)).toBe(before);
  });

  it('fails and refunds a task past TASK_TIMEOUT_MINUTES', async () => {
    const res = await submit('/mj/submit/imagine', { prompt: 'slow' });
    const mjId = res.body.result as string;
    const row = (await fx.user.client.get(`/api/mj/self?mj_id=${mjId}`)).body.data.items[0];
    const before = await fx.quota(fx.user.id);
    // A pass "two days later": the default timeout is 1440 minutes (every task still open times out).
    const pass = await fx.gw.gateway.app.get(TaskPoller).runOnce(Date.now() + 2 * 86_400_000);
    expect(pass?.midjourney?.timedOut).toBeGreaterThanOrEqual(1);
    expect(await fx.quota(fx.user.id)).toBeGreaterThanOrEqual(before + IMAGINE);
    expect((await get(`/mj/task/${mjId}/fetch`)).body).toMatchObject({ status: 'FAILURE', failReason: 'task timed out' });
    const refunds = (await refundLogs()).filter((log: any) => JSON.parse(log.other).task_row_id === row.id);
    expect(refunds).toHaveLength(1);
    expect(refunds[0].quota).toBe(IMAGINE);
  });

  it("takes the proxy's callbacks at /mj/notify for the caller's own tasks: progress, success, and one refund for a failure", async () => {
    const before = await fx.quota(fx.user.id);
    const done = (await submit('/mj/submit/imagine', { prompt: 'notified' })).body.result as string;
    const failed = (await submit('/mj/submit/imagine', { prompt: 'notified to fail' })).body.result as string;
    const refundsBefore = (await refundLogs()).length;
    expect((await submit('/mj/notify', { id: done, status: 'IN_PROGRESS', progress: '40%' })).body).toMatchObject({ code: 1 });
    expect((await get(`/mj/task/${done}/fetch`)).body).toMatchObject({ status: 'IN_PROGRESS', progress: '40%' });
    await submit('/mj/notify', {
      id: done,
      status: 'SUCCESS',
      progress: '100%',
      imageUrl: 'https://cdn.example/n.png',
      finishTime: Date.now(),
    });
    expect((await get(`/mj/task/${done}/fetch`)).body).toMatchObject({ status: 'SUCCESS', imageUrl: 'https://cdn.example/n.png' });
    // A finished task is not moved back by a late callback.
    await submit('/mj/notify', { id: done, status: 'IN_PROGRESS', progress: '90%' });
    expect((await get(`/mj/task/${done}/fetch`)).body.status).toBe('SUCCESS');

    const failure = { id: failed, status: 'FAILURE', progress: '0%', failReason: 'banned prompt' };
    await Promise.all([submit('/mj/notify', failure), submit('/mj/notify', failure), submit('/mj/notify', failure)]);
    expect((await get(`/mj/task/${failed}/fetch`)).body).toMatchObject({ status: 'FAILURE', failReason: 'banned prompt' });
    expect(await fx.quota(fx.user.id)).toBe(before - 2 * 50_000 + 50_000);
    expect((await refundLogs()).length).toBe(refundsBefore + 1);

    expect((await submit('/mj/notify', { id: 'someone-elses' })).body).toMatchObject({ code: 4, description: 'task_no_found' });
    expect((await submit('/mj/notify', { status: 'SUCCESS' })).body).toMatchObject({ code: 4 });
    expect((await submit('/mj/notify', { id: done }, {})).status).toBe(401);
  });

  it('resumes polling after a restart and with two instances refunds each failure once', async () => {
    const before = await fx.quota(fx.user.id);
    const refundsBefore = (await refundLogs()).length;
    const res = await submit('/mj/submit/imagine', { prompt: 'across restarts' });
    const mjId = res.body.result as string;
    mj.update(mjId, { status: 'IN_PROGRESS', progress: '10%' });
    await poll();

    // The gateway that took the task stops polling; the task fails upstream meanwhile.
    mj.update(mjId, { status: 'FAILURE', progress: '10%', failReason: 'worker lost' });
    // Two fresh instances on the same database poll on their own (every second): the task is picked up again.
    const env = { TASK_POLL_INTERVAL: '1' };
    const b = await startTestGateway(kind, env, fx.gw.db);
    const c = await startTestGateway(kind, env, fx.gw.db);
    try {
      await waitFor(async () => ((await fx.quota(fx.user.id)) === before ? true : undefined), 'the refund', 10_000);
      // Every instance polling at once still pays back once.
      await Promise.all([poll(b), poll(c), poll()]);
      expect(await fx.quota(fx.user.id)).toBe(before);
      expect((await refundLogs(b, c)).length).toBe(refundsBefore + 1);
      expect((await get(`/mj/task/${mjId}/fetch`, b)).body).toMatchObject({ status: 'FAILURE', failReason: 'worker lost' });
    } finally {
      await c.close();
      await b.close();
    }
  });
});
