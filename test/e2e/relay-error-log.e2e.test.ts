import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LogRetentionService } from '@gw/log';
import { testDatabases } from '../support/databases.js';
import { CHAT, RATIOS, type RelayFixture, startRelayFixture } from './relay-fixture.js';

const ERROR = 5;
const DAY = 86_400;

/**
 * ERROR_LOG_ENABLED (new-api's processChannelError → RecordErrorLog): every failed channel attempt of a relay
 * request writes a type-5 row; refusals before any channel is tried (quota, invalid request, no channel,
 * no price, a bad key) write none.
 */
describe.each(testDatabases())('relay error logs (ERROR_LOG_ENABLED=true) on %s', (kind) => {
  let f: RelayFixture;
  let token: { id: number; key: string };
  const keyOf = (id: number) => `sk-err-${id}`;
  /** A channel whose key names it, so the fake upstream can fail it alone. */
  const channel = async (fields: Record<string, unknown>) => {
    const id = await f.channel(fields);
    const res = await f.root.put('/api/channel/', { id, key: keyOf(id) });
    expect(res.body.success, res.text).toBe(true);
    return id;
  };
  const chat = (model: string, body: Record<string, unknown> = {}, key = token.key) =>
    fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
  const errorRows = (where: Record<string, unknown> = {}) => f.logs({ userId: f.user.id, type: ERROR, ...where });

  beforeAll(async () => {
    f = await startRelayFixture(kind, { ERROR_LOG_ENABLED: 'true' });
    await f.setOption('ModelRatio', { ...RATIOS, 'err-500': 1, 'err-retry': 1, 'err-all': 1, 'err-ok': 1, 'err-blocked': 1 });
    token = await f.token({ unlimited_quota: true });
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('an upstream 500 writes one error row: the message, token, model, channel, group, request id and other', async () => {
    await f.setOption('RetryTimes', '0');
    const id = await channel({ models: 'err-500', name: 'err-chan' });
    f.up.script({ key: keyOf(id), status: 500, errorMessage: 'upstream exploded' });
    const before = await f.quota(f.user.id);
    const res = await chat('err-500', { stream: true });
    expect(res.status).toBe(500);
    const requestId = res.headers.get('x-oneapi-request-id');
    const [row, ...more] = await f.logCount({ requestId }, 1);
    expect(more).toHaveLength(0);
    expect(row).toMatchObject({
      type: ERROR,
      userId: f.user.id,
      content: 'status_code=500, upstream exploded',
      tokenId: token.id,
      modelName: 'err-500',
      quota: 0,
      promptTokens: 0,
      completionTokens: 0,
      channelId: id,
      group: 'default',
      isStream: true,
      ip: '',
    });
    expect(row.tokenName).toMatch(/^t\d+$/);
    expect(row.useTime).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(row.other)).toEqual({
      request_path: '/v1/chat/completions',
      error_type: 'upstream_error',
      error_code: 500,
      status_code: 500,
      channel_id: id,
      channel_name: 'err-chan',
      channel_type: 1,
      admin_info: { use_channel: [String(id)] },
    });
    // Refunded, and no consume row.
    expect(await f.quota(f.user.id)).toBe(before);
    expect(await f.logs({ requestId, type: 2 })).toHaveLength(0);

    // The user's own view: the row under type=5 and under "all", without channel or admin_info.
    const self = await f.user.client.get('/api/log/self/?p=1&page_size=10&type=5');
    expect(self.body.success, self.text).toBe(true);
    const mine = self.body.data.items.find((item: any) => item.request_id === requestId);
    expect(mine).toMatchObject({ type: ERROR, content: 'status_code=500, upstream exploded', channel: 0, channel_name: '', quota: 0 });
    expect(JSON.parse(mine.other)).toEqual({
      request_path: '/v1/chat/completions',
      error_type: 'upstream_error',
      error_code: 500,
      status_code: 500,
    });
    const all = await f.user.client.get('/api/log/self/?p=1&page_size=100');
    expect(all.body.data.items.map((item: any) => item.request_id)).toContain(requestId);
    const consumeOnly = await f.user.client.get('/api/log/self/?p=1&page_size=100&type=2');
    expect(consumeOnly.body.data.items.map((item: any) => item.request_id)).not.toContain(requestId);

    // The admin view: channel id and name, admin_info kept.
    const admin = await f.root.get('/api/log/?p=1&page_size=10&type=5');
    const seen = admin.body.data.items.find((item: any) => item.request_id === requestId);
    expect(seen).toMatchObject({ type: ERROR, channel: id, channel_name: 'err-chan', user_id: f.user.id });
    expect(JSON.parse(seen.other)).toMatchObject({ channel_id: id, admin_info: { use_channel: [String(id)] } });

    // Error rows are no spending: the stats count consume rows only.
    const username = (await f.user.client.get('/api/user/self')).body.data.username as string;
    expect((await f.root.get(`/api/log/stat?username=${username}&type=5`)).body.data).toMatchObject({ quota: 0, rpm: 0, tpm: 0 });
    expect((await f.user.client.get('/api/log/self/stat')).body.data).toMatchObject({ quota: 0, rpm: 0 });
  });

  it('writes one row per failed channel attempt (as new-api), also when a retry then succeeds', async () => {
    await f.setOption('RetryTimes', '1');
    const high = await channel({ models: 'err-retry', priority: 10 });
    const low = await channel({ models: 'err-retry', priority: 0 });
    f.up.script({ key: keyOf(high), status: 502, errorMessage: 'high is down' });
    const ok = await chat('err-retry');
    expect(ok.status).toBe(200);
    const okId = ok.headers.get('x-oneapi-request-id');
    const [consume] = await f.logCount({ requestId: okId, type: 2 }, 1);
    expect(consume.channelId).toBe(low);
    const [retried, ...rest] = await errorRows({ requestId: okId });
    expect(rest).toHaveLength(0);
    expect(retried).toMatchObject({ channelId: high, content: 'status_code=502, high is down', isStream: false });
    expect(JSON.parse(retried.other).admin_info).toEqual({ use_channel: [String(high)] });

    const a = await channel({ models: 'err-all', priority: 10 });
    const b = await channel({ models: 'err-all', priority: 0 });
    f.up.script({ key: keyOf(a), status: 503, errorMessage: 'a is down' });
    f.up.script({ key: keyOf(b), status: 500, errorMessage: 'b is down' });
    const failed = await chat('err-all');
    expect(failed.status).toBe(500);
    const rows = await f.logCount({ requestId: failed.headers.get('x-oneapi-request-id'), type: ERROR }, 2);
    expect(rows.map((r) => [r.channelId, r.content])).toEqual([
      [a, 'status_code=503, a is down'],
      [b, 'status_code=500, b is down'],
    ]);
    expect(rows.map((r) => JSON.parse(r.other).admin_info.use_channel)).toEqual([[String(a)], [String(a), String(b)]]);
    await f.setOption('RetryTimes', '0');
  });

  it('logs a prompt Gemini refused as the failed call new-api makes of it (400 prompt_blocked), refunded', async () => {
    const id = await channel({ type: 24, models: 'err-blocked', name: 'gemini-chan' });
    f.up.script({
      path: '/v1beta/models/err-blocked:generateContent',
      raw: {
        contentType: 'application/json',
        body: JSON.stringify({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } }),
      },
    });
    const before = await f.quota(f.user.id);
    const res = await chat('err-blocked');
    expect(res.status).toBe(400);
    const requestId = res.headers.get('x-oneapi-request-id');
    const [row, ...more] = await f.logCount({ requestId }, 1);
    expect(more).toHaveLength(0);
    expect(row).toMatchObject({
      type: ERROR,
      content: 'status_code=400, request blocked by Gemini API: SAFETY',
      quota: 0,
      promptTokens: 0,
      channelId: id,
    });
    expect(JSON.parse(row.other)).toMatchObject({ error_type: 'prompt_blocked', error_code: 'prompt_blocked', status_code: 400 });
    expect(await f.quota(f.user.id)).toBe(before);
  });

  it('writes no error row for refusals new-api does not log: quota, invalid request, no channel, no price, a bad key', async () => {
    await f.channel({ models: 'err-ok,err-unpriced' });
    const before = (await errorRows()).length;
    const poor = await f.token({ remain_quota: 0 });
    const refusals = await Promise.all([
      chat('err-ok', {}, poor.key), // the token's quota
      fetch(`${f.gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.key}`, 'content-type': 'application/json' },
        body: '{not json',
      }), // an invalid request
      chat(''), // no model
      chat('no-such-model'), // no channel
      chat('err-unpriced'), // no price
      chat('err-ok', {}, 'sk-not-a-real-key'),
    ]);
    for (const res of refusals) expect(res.status).toBeGreaterThanOrEqual(400);
    await f.setQuota(f.user.id, 0);
    try {
      expect((await chat('err-ok')).status).toBe(403); // the user's quota
    } finally {
      await f.setQuota(f.user.id, 10_000_000);
    }
    expect(await errorRows()).toHaveLength(before);
  });

  it('a Realtime session whose provider cannot be reached writes an error row for the connect (request_path /v1/realtime)', async () => {
    await f.setOption('RetryTimes', '0');
    await f.setOption('ModelRatio', { ...RATIOS, 'err-rt': 1 });
    // A port nobody listens on: the provider connect is refused.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const id = await channel({ models: 'err-rt', name: 'err-rt-chan', base_url: `http://127.0.0.1:${closed}` });
    const answer = await new Promise<{ status: number; requestId: string }>((resolve, reject) => {
      const req = request(`${f.gw.url}/v1/realtime?model=err-rt`, {
        headers: {
          authorization: `Bearer ${token.key}`,
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-version': '13',
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode!, requestId: String(res.headers['x-oneapi-request-id']) });
      });
      req.on('upgrade', (_res, socket) => {
        socket.destroy();
        reject(new Error('the upgrade should have been refused'));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(502);
    const [row] = await f.logCount({ requestId: answer.requestId }, 1);
    expect(row).toMatchObject({ type: ERROR, modelName: 'err-rt', channelId: id, quota: 0, isStream: true, tokenId: token.id });
    expect(row.content).toMatch(/^status_code=502, /);
    expect(JSON.parse(row.other)).toMatchObject({
      request_path: '/v1/realtime',
      status_code: 502,
      channel_id: id,
      channel_name: 'err-rt-chan',
    });
  });

  it('retention removes error rows with the rest', async () => {
    expect((await errorRows()).length).toBeGreaterThan(0);
    expect((await f.root.put('/api/option/', { key: 'LogRetentionDays', value: '1' })).body.success).toBe(true);
    await f.gw.gateway.app.get(LogRetentionService).runOnce(Math.floor(Date.now() / 1000) + 2 * DAY);
    expect(await errorRows()).toHaveLength(0);
  });
});

describe.each(testDatabases())('relay error logs off (the default) on %s', (kind) => {
  let f: RelayFixture;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('an upstream 500 writes no row at all', async () => {
    await f.channel({ models: CHAT });
    const token = await f.token({ unlimited_quota: true });
    f.up.script({ status: 500, errorMessage: 'upstream exploded' });
    const res = await fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(500);
    expect(await f.logs({ requestId: res.headers.get('x-oneapi-request-id') })).toHaveLength(0);
    expect(await f.logs({ userId: f.user.id, type: ERROR })).toHaveLength(0);
  });
});
