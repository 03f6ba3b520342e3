import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { relayMessage } from '../support/relay-error.js';
import { RATIOS, startRelayFixture, type RelayFixture } from './relay-fixture.js';

/** Retries, pinned channels, model mapping, param override and status-code mapping, each on its own model. */
describe.each(testDatabases())('relay: channel routing and retries on %s', (kind) => {
  let f: RelayFixture;
  let token: { id: number; key: string };
  const models = ['retry-ok', 'retry-fail', 'pin-model', 'map-a', 'cyc-a', 'status-model', 'override-model'];
  const keyOf = (id: number) => `sk-up-routing-${id}`;

  async function channel(fields: Record<string, unknown>): Promise<number> {
    const id = await f.channel(fields);
    await f.root.put('/api/channel/', { id, key: keyOf(id) });
    return id;
  }
  const chat = (model: string, key = token.key) =>
    f.gw.client().post('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] }, { Authorization: `Bearer ${key}` });
  const lastLog = (requestId: string | null) => f.settled(requestId);

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelRatio', { ...RATIOS, ...Object.fromEntries(models.map((m) => [m, 1])) });
    token = await f.token({ remain_quota: 5_000_000 });
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('retries a 500 on the next tier and logs every channel used', async () => {
    const high = await channel({ models: 'retry-ok', priority: 10 });
    const low = await channel({ models: 'retry-ok', priority: 0 });
    f.up.script({ key: keyOf(high), status: 500 });
    await f.setOption('RetryTimes', '1');
    const res = await chat('retry-ok');
    expect(res.status, res.text).toBe(200);
    expect(f.up.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${keyOf(high)}`, `Bearer ${keyOf(low)}`]);
    const log = await lastLog(res.headers.get('x-oneapi-request-id'));
    expect(log.channelId).toBe(low);
    expect(JSON.parse(log.other).admin_info.use_channel).toEqual([String(high), String(low)]);
  });

  it('retries a connection failure on another channel', async () => {
    await f.setOption('RetryTimes', '2');
    const dead = await channel({ models: 'retry-ok', priority: 20, base_url: 'http://127.0.0.1:1' });
    const res = await chat('retry-ok');
    expect(res.status, res.text).toBe(200);
    const other = JSON.parse((await lastLog(res.headers.get('x-oneapi-request-id'))).other);
    expect(other.admin_info.use_channel[0]).toBe(String(dead));
    expect(other.admin_info.use_channel).toHaveLength(2);
    await f.root.delete(`/api/channel/${dead}`);
  });

  it('never tries a failed channel twice, and refunds when every attempt fails', async () => {
    const a = await channel({ models: 'retry-fail', priority: 10 });
    const b = await channel({ models: 'retry-fail', priority: 0 });
    f.up.script({ key: keyOf(a), status: 503, errorMessage: 'a is down' });
    f.up.script({ key: keyOf(b), status: 500, errorMessage: 'b is down' });
    await f.setOption('RetryTimes', '3');
    const before = await f.quota(f.user.id);
    const res = await chat('retry-fail');
    expect(res.status).toBe(500);
    expect(relayMessage(res)).toBe('b is down');
    expect(f.up.requests).toHaveLength(2);
    expect(new Set(f.up.requests.map((r) => r.headers.authorization)).size).toBe(2);
    expect(await f.quota(f.user.id)).toBe(before);
  });

  it('does not retry a 400 or a 504', async () => {
    const a = await channel({ models: 'status-model', priority: 10 });
    await channel({ models: 'status-model', priority: 0 });
    await f.setOption('RetryTimes', '3');
    f.up.script({ key: keyOf(a), status: 400, times: 1 });
    expect((await chat('status-model')).status).toBe(400);
    f.up.script({ key: keyOf(a), status: 504, times: 1 });
    expect((await chat('status-model')).status).toBe(504);
    expect(f.up.requests).toHaveLength(2);
  });

  it('maps the error status with status_code_mapping and keeps the upstream message', async () => {
    await f.setOption('RetryTimes', '0');
    const id = await channel({ models: 'override-model', status_code_mapping: '{"500":"502"}', param_override: '{"temperature":0.25}' });
    f.up.script({ key: keyOf(id), status: 500, errorMessage: 'upstream exploded', times: 1 });
    const failed = await chat('override-model');
    expect(failed.status).toBe(502);
    expect(relayMessage(failed)).toBe('upstream exploded');
    const ok = await chat('override-model');
    expect(ok.status).toBe(200);
    expect(f.up.requests.at(-1)!.body.temperature).toBe(0.25);
  });

  it('follows a model mapping chain and refuses a cycle cleanly', async () => {
    await f.setOption('RetryTimes', '0');
    await channel({ models: 'map-a', model_mapping: '{"map-a":"map-b","map-b":"map-c"}' });
    const res = await chat('map-a');
    expect(res.status, res.text).toBe(200);
    expect(f.up.requests[0]!.body.model).toBe('map-c');
    const other = JSON.parse((await lastLog(res.headers.get('x-oneapi-request-id'))).other);
    expect(other).toMatchObject({ is_model_mapped: true, upstream_model_name: 'map-c' });

    await channel({ models: 'cyc-a', model_mapping: '{"cyc-a":"cyc-b","cyc-b":"cyc-a"}' });
    const before = await f.quota(f.user.id);
    const cycle = await chat('cyc-a');
    expect(cycle.status).toBe(500);
    expect(relayMessage(cycle)).toBe('model mapping contains a cycle');
    expect(f.up.requests).toHaveLength(1);
    expect(await f.quota(f.user.id)).toBe(before);
  });

  it('lets an admin pin a channel with sk-KEY-ID (no retry), and refuses it to a user', async () => {
    await f.setOption('RetryTimes', '3');
    const pinned = await channel({ models: 'pin-model', priority: 0 });
    await channel({ models: 'pin-model', priority: 10 });
    const rootToken = await f.token({ remain_quota: 1_000_000 }, f.root);
    const ok = await chat('pin-model', `${rootToken.key}-${pinned}`);
    expect(ok.status, ok.text).toBe(200);
    expect(f.up.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${keyOf(pinned)}`]);

    f.up.script({ key: keyOf(pinned), status: 500 });
    expect((await chat('pin-model', `${rootToken.key}-${pinned}`)).status).toBe(500);
    expect(f.up.requests).toHaveLength(2);
    expect((await chat('pin-model', `${token.key}-${pinned}`)).status).toBe(403);
  });
});
