import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChannelHealthService, ChannelMonitorService, ChannelRouter, ChannelUsageService } from '@gw/channel';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

/** A small scriptable OpenAI-compatible provider: per-key faults, recorded requests. */
interface Fault {
  status?: number;
  body?: unknown;
  delayMs?: number;
  /** Applies to this many requests, then the key answers normally again. */
  times?: number;
}
class MiniUpstream {
  server!: Server;
  url = '';
  requests: { method: string; path: string; auth?: string; body?: any }[] = [];
  faults = new Map<string, Fault>();
  /** total_usage (cents) answered per key; default 2500. */
  usage = new Map<string, number>();
  /** Requests that reached the redirect target (must stay 0: redirects are never followed). */
  canaryHits = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const auth = req.headers.authorization;
    const path = req.url!;
    this.requests.push({ method: req.method!, path, auth, body: raw ? JSON.parse(raw) : undefined });
    const key = auth?.replace(/^Bearer /, '') ?? '';
    const fault = this.faults.get(key);
    if (fault?.times !== undefined && --fault.times <= 0) this.faults.delete(key);
    if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (fault?.status) return send(fault.status, fault.body ?? { error: { message: `fault ${fault.status}`, type: 'upstream_error' } });
    if (path.startsWith('/canary')) {
      this.canaryHits++;
      return send(200, { choices: [] });
    }
    if (path.startsWith('/redirect/')) {
      res.writeHead(302, { location: `${this.url}/canary${path}` });
      res.end();
      return;
    }
    if (path.startsWith('/huge/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [], pad: 'x'.repeat(2 * 1024 * 1024) }));
      return;
    }
    // Provider balance APIs (new-api channel-billing.go shapes).
    if (path === '/user/balance')
      return send(200, {
        is_available: true,
        balance_infos: [
          { currency: 'USD', total_balance: '1.00' },
          { currency: 'CNY', total_balance: '42.50' },
        ],
      });
    if (path === '/v1/user/info') return send(200, { code: 20000, status: true, data: { totalBalance: '12.30' } });
    if (path === '/v1/credits') return send(200, { data: { total_credits: 20, total_usage: 5.5 } });
    if (path === '/v1/users/me/balance') return send(200, { code: 0, status: true, data: { available_balance: 73 } });
    if (path === '/dashboard/billing/credit_grants')
      return send(200, { object: 'credit_grant', total_granted: 10, total_used: 7, total_remaining: 3, total_available: 4 });
    if (path.startsWith('/v1/chat/completions')) {
      return send(200, {
        id: 'x',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hello' } }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }
    if (path === '/v1/embeddings') return send(200, { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }] });
    if (path === '/v1/models') return send(200, { object: 'list', data: [{ id: 'up-a' }, { id: 'up-b' }] });
    if (path === '/v1/dashboard/billing/subscription') return send(200, { hard_limit_usd: 100 });
    if (path.startsWith('/v1/dashboard/billing/usage')) return send(200, { total_usage: this.usage.get(key) ?? 2500 });
    send(404, { error: { message: 'not found' } });
  }
}

describe.each(testDatabases())('channel tests, balances and health on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  const up = new MiniUpstream();
  let n = 0;

  async function create(channel: Record<string, unknown>): Promise<number> {
    const res = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: `ch-${++n}`, key: `sk-up-${n}`, models: 'gpt-4o-mini', base_url: up.url, ...channel },
    });
    expect(res.body.success, res.text).toBe(true);
    return res.body.data.ids[0];
  }
  const view = async (id: number) => (await root.get(`/api/channel/${id}`)).body.data;
  const setOption = async (key: string, value: unknown) => expect((await root.put('/api/option/', { key, value })).body.success).toBe(true);

  beforeAll(async () => {
    await up.start();
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
  });
  afterAll(async () => {
    await gw?.close();
    await up.close();
  });
  beforeEach(() => {
    up.requests = [];
    up.faults.clear();
    up.usage.clear();
    up.canaryHits = 0;
  });

  it('tests a channel with a small real chat request and records the time', async () => {
    const id = await create({ key: 'sk-up-test', models: 'gpt-4o-mini,other', model_mapping: '{"other":"mapped"}' });
    const res = await root.get(`/api/channel/test/${id}`);
    expect(res.body).toEqual({ success: true, message: '', time: expect.any(Number) });
    expect(up.requests).toHaveLength(1);
    expect(up.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      auth: 'Bearer sk-up-test',
      body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 },
    });
    const after = await view(id);
    expect(after.test_time).toBeGreaterThan(1_700_000_000);
    expect(after.response_time).toBeGreaterThanOrEqual(0);

    await root.get(`/api/channel/test/${id}?model=other`);
    expect(up.requests[1]!.body.model).toBe('mapped');

    const embedding = await create({ key: 'sk-up-embed', models: 'text-embedding-3-small' });
    expect((await root.get(`/api/channel/test/${embedding}`)).body.success).toBe(true);
    expect(up.requests[2]).toMatchObject({ path: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: ['hi'] } });
  });

  it('reports upstream failures and slow answers as failed tests', async () => {
    const id = await create({ key: 'sk-up-bad' });
    up.faults.set('sk-up-bad', { status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    expect((await root.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: false, message: 'Incorrect API key provided' });

    up.faults.set('sk-up-bad', { delayMs: 400 });
    await setOption('ChannelDisableThreshold', '0.2');
    const slow = await root.get(`/api/channel/test/${id}`);
    expect(slow.body.success).toBe(false);
    expect(slow.body.message).toMatch(/exceeds the threshold/);
    expect(slow.body.time).toBeGreaterThanOrEqual(0.2);
    await setOption('ChannelDisableThreshold', '5');

    const unreachable = await create({ base_url: 'http://127.0.0.1:9' });
    expect((await root.get(`/api/channel/test/${unreachable}`)).body).toMatchObject({ success: false });
    // Claude, Gemini and the other adaptor types are tested through their adaptors (channel-test-adaptors e2e);
    // a task-only type has no chat call to test with.
    const midjourney = await create({ type: 2, base_url: '' });
    expect((await root.get(`/api/channel/test/${midjourney}`)).body).toMatchObject({
      success: false,
      message: expect.stringMatching(/cannot be tested/),
    });
    expect((await root.get('/api/channel/test/999999')).body).toEqual({ success: false, message: 'channel not found, refresh' });
  });

  it('updates balances from the OpenAI billing endpoints', async () => {
    const id = await create({ key: 'sk-up-balance' });
    const res = await root.get(`/api/channel/update_balance/${id}/`);
    expect(res.body).toEqual({ success: true, message: '', balance: 75 });
    expect(up.requests.map((r) => r.path.split('?')[0])).toEqual(['/v1/dashboard/billing/subscription', '/v1/dashboard/billing/usage']);
    expect(up.requests[1]!.path).toMatch(/start_date=\d{4}-\d{2}-\d{2}&end_date=\d{4}-\d{2}-\d{2}/);
    const after = await view(id);
    expect(after.balance).toBe(75);
    expect(after.balance_updated_time).toBeGreaterThan(1_700_000_000);

    const azure = await create({ type: 3, base_url: up.url });
    expect((await root.get(`/api/channel/update_balance/${azure}`)).body).toMatchObject({
      success: false,
      message: expect.stringMatching(/not supported/),
    });
    const all = await root.get('/api/channel/update_balance');
    expect(all.body.success).toBe(true);
    expect(all.body.data.updated).toBeGreaterThanOrEqual(1);
  });

  it('disables a channel whose balance is exhausted in the balance job', async () => {
    const monitor = gw.gateway.app.get(ChannelMonitorService);
    await setOption('AutomaticDisableChannelEnabled', true);
    const broke = await create({ key: 'sk-up-broke' });
    up.usage.set('sk-up-broke', 10_500);
    const result = await monitor.runBalanceCycle();
    expect(result.updated).toBeGreaterThanOrEqual(1);
    expect(result.disabled).toBeGreaterThanOrEqual(1);
    const after = await view(broke);
    expect(after).toMatchObject({ status: 3, balance: -5 });
    expect(JSON.parse(after.other_info).status_reason).toMatch(/balance/);
    await root.put('/api/channel/', { id: broke, status: 1 });
    await setOption('AutomaticDisableChannelEnabled', false);
  });

  it('fetches upstream model lists', async () => {
    const id = await create({ key: 'sk-up-models' });
    expect((await root.get(`/api/channel/fetch_models/${id}`)).body).toEqual({ success: true, message: '', data: ['up-a', 'up-b'] });
    expect(up.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models', auth: 'Bearer sk-up-models' });
    const direct = await root.post('/api/channel/fetch_models', { base_url: up.url, type: 1, key: 'sk-direct' });
    expect(direct.body).toEqual({ success: true, message: '', data: ['up-a', 'up-b'] });
    expect((await root.post('/api/channel/fetch_models', { base_url: up.url, type: 1, key: '' })).body).toEqual({
      success: false,
      message: 'please fill key',
    });
    up.faults.set('sk-up-models', { status: 500 });
    expect((await root.get(`/api/channel/fetch_models/${id}`)).body.message).toMatch(/^fetch model list failed/);
  });

  it('runs a health-check cycle that disables a failing channel and re-enables it after it recovers', async () => {
    const monitor = gw.gateway.app.get(ChannelMonitorService);
    const router = gw.gateway.app.get(ChannelRouter);
    await setOption('AutomaticDisableChannelEnabled', true);
    await setOption('AutomaticEnableChannelEnabled', true);
    const id = await create({ key: 'sk-up-health', models: 'health-model' });
    const noBan = await create({ key: 'sk-up-noban', models: 'health-model', auto_ban: 0 });
    const manual = await create({ key: 'sk-up-manual', models: 'health-model' });
    await root.put('/api/channel/', { id: manual, status: 2 });
    expect(router.pick('default', 'health-model', new Set([noBan]))?.id).toBe(id);

    up.faults.set('sk-up-health', { status: 401, body: { error: { message: 'invalid key' } } });
    up.faults.set('sk-up-noban', { status: 401 });
    const first = await monitor.runCycle();
    expect(first.disabled).toBeGreaterThanOrEqual(1);
    const disabled = await view(id);
    expect(disabled.status).toBe(3);
    expect(JSON.parse(disabled.other_info)).toMatchObject({
      status_reason: expect.stringMatching(/invalid key/),
      status_time: expect.any(Number),
    });
    expect((await view(noBan)).status).toBe(1);
    expect(up.requests.some((r) => r.auth === 'Bearer sk-up-manual')).toBe(false);
    expect(router.pick('default', 'health-model', new Set([noBan]))).toBeUndefined();
    expect((await root.get('/api/channel/models_enabled')).body.data).toContain('health-model');

    up.faults.clear();
    const second = await monitor.runCycle();
    expect(second.enabled).toBeGreaterThanOrEqual(1);
    expect((await view(id)).status).toBe(1);
    expect((await view(manual)).status).toBe(2);
    expect(router.pick('default', 'health-model', new Set([noBan]))?.id).toBe(id);
  });

  it('tests all channels in the background', async () => {
    const monitor = gw.gateway.app.get(ChannelMonitorService);
    const id = await create({ key: 'sk-up-all' });
    expect((await root.get('/api/channel/test')).body).toMatchObject({ success: true });
    await monitor.runCycle();
    expect(up.requests.some((r) => r.auth === 'Bearer sk-up-all')).toBe(true);
    expect((await view(id)).test_time).toBeGreaterThan(0);
  });

  it('auto-disables from relay failures only after enough of them in the window', async () => {
    const health = gw.gateway.app.get(ChannelHealthService);
    const router = gw.gateway.app.get(ChannelRouter);
    await setOption('AutomaticDisableChannelEnabled', true);
    await setOption('ChannelDisableFailureCount', '3');
    const id = await create({ key: 'sk-up-relay', models: 'relay-model' });
    expect(await health.recordFailure(id, { status: 500, message: 'server error' })).toBe(false);
    expect(await health.recordFailure(id, { status: 401, message: 'bad key' })).toBe(false);
    expect(await health.recordFailure(id, { message: 'You exceeded your current quota, please check' })).toBe(false);
    expect(await health.recordFailure(id, { status: 401, message: 'bad key' })).toBe(true);
    expect((await view(id)).status).toBe(3);
    expect(router.pick('default', 'relay-model', new Set())).toBeUndefined();

    const ok = await create({ key: 'sk-up-relay2', models: 'relay-model' });
    await health.recordFailure(ok, { status: 401, message: 'bad' });
    await health.recordFailure(ok, { status: 401, message: 'bad' });
    health.reportRelaySuccess(ok);
    expect(await health.recordFailure(ok, { status: 401, message: 'bad' })).toBe(false);
    expect((await view(ok)).status).toBe(1);

    const broken = await create({ key: 'sk-up-relay3', models: 'relay-model' });
    expect(await health.recordFailure(broken, { status: 500, message: 'x', channelError: true })).toBe(false);
    expect(await health.recordFailure(broken, { status: 500, message: 'x', channelError: true })).toBe(false);
    expect(await health.recordFailure(broken, { status: 500, message: 'x', channelError: true })).toBe(true);
    const noBan = await create({ key: 'sk-up-relay4', models: 'relay-model', auto_ban: 0 });
    for (let i = 0; i < 5; i++) expect(await health.recordFailure(noBan, { status: 401, message: 'bad' })).toBe(false);

    await setOption('AutomaticDisableChannelEnabled', false);
    for (let i = 0; i < 5; i++) expect(await health.recordFailure(ok, { status: 401, message: 'bad' })).toBe(false);
    expect((await view(ok)).status).toBe(1);
  });

  it('adds used quota in batches', async () => {
    const usage = gw.gateway.app.get(ChannelUsageService);
    const id = await create({ key: 'sk-up-usage' });
    usage.addUsedQuota(id, 100);
    usage.addUsedQuota(id, 250);
    await usage.flush();
    expect((await view(id)).used_quota).toBe(350);
  });

  it('gives the relay a parsed channel with its upstream target', async () => {
    const router = gw.gateway.app.get(ChannelRouter);
    const id = await create({
      key: 'sk-up-relay-view',
      models: 'rv-a,rv-b',
      group: 'default,vip',
      model_mapping: '{"rv-a":"x"}',
      header_override: '{"X-A":"1"}',
      priority: 2,
    });
    const channel = router.get(id)!;
    expect(channel).toMatchObject({
      id,
      key: 'sk-up-relay-view',
      models: ['rv-a', 'rv-b'],
      groups: ['default', 'vip'],
      modelMapping: { 'rv-a': 'x' },
      headerOverride: { 'X-A': '1' },
      priority: 2,
      autoBan: true,
      status: 1,
      upstream: { id, type: 1, key: 'sk-up-relay-view', baseUrl: up.url },
    });
    expect(router.modelsForGroups(['vip'])).toEqual(['rv-a', 'rv-b']);
    expect(router.groupsForModel('rv-b')).toEqual(['default', 'vip']);
    expect(router.pick('vip', 'rv-a', new Set())?.id).toBe(id);
    expect(router.pick('vip', 'rv-a', new Set([id]))).toBeUndefined();
  });
  it("reads each provider's balance API and answers 'not supported' for types without one", async () => {
    await setOption('Price', '7.3');
    const cases: [number, number, string][] = [
      [43, 42.5, '/user/balance'],
      [40, 12.3, '/v1/user/info'],
      [20, 14.5, '/v1/credits'],
      [25, 10, '/v1/users/me/balance'],
      [12, 3, '/dashboard/billing/credit_grants'],
      [13, 4, '/dashboard/billing/credit_grants'],
    ];
    for (const [type, balance, path] of cases) {
      const id = await create({ type, key: `sk-up-bal-${type}` });
      up.requests = [];
      const res = await root.get(`/api/channel/update_balance/${id}`);
      expect(res.body, `type ${type}`).toEqual({ success: true, message: '', balance });
      expect(up.requests).toEqual([expect.objectContaining({ method: 'GET', path, auth: `Bearer sk-up-bal-${type}` })]);
      expect((await view(id)).balance).toBe(balance);
    }
    up.requests = [];
    for (const type of [3, 4, 14, 24, 8, 48]) {
      const id = await create({ type, key: `sk-up-nobal-${type}`, base_url: type === 8 ? `${up.url}/v1/chat/completions` : up.url });
      expect((await root.get(`/api/channel/update_balance/${id}`)).body, `type ${type}`).toEqual({
        success: false,
        message: 'balance query is not supported for this channel type',
      });
    }
    expect(up.requests).toEqual([]);
    const failing = await create({ type: 43, key: 'sk-up-bal-fail' });
    up.faults.set('sk-up-bal-fail', { status: 401, body: { error: { message: 'Authentication Fails (sk-up-bal-fail is invalid)' } } });
    const failed = await root.get(`/api/channel/update_balance/${failing}`);
    expect(failed.body).toMatchObject({ success: false });
    expect(failed.text).not.toContain('sk-up-bal-fail');
  });

  it('never follows an upstream redirect, caps the answer size, and never echoes the key', async () => {
    const redirected = await create({ key: 'sk-up-redirect', base_url: `${up.url}/redirect` });
    const res = await root.get(`/api/channel/test/${redirected}`);
    expect(res.body).toMatchObject({ success: false, message: expect.stringMatching(/redirects are not followed/) });
    expect(up.canaryHits).toBe(0);
    expect(up.requests.map((r) => r.path)).toEqual(['/redirect/v1/chat/completions']);

    const huge = await create({ key: 'sk-up-huge', base_url: `${up.url}/huge` });
    expect((await root.get(`/api/channel/test/${huge}`)).body).toMatchObject({
      success: false,
      message: expect.stringMatching(/larger than/),
    });

    const echo = await create({ key: 'sk-up-echo-0123456789' });
    up.faults.set('sk-up-echo-0123456789', {
      status: 401,
      body: { error: { message: 'Incorrect API key provided: sk-up-echo-0123456789.' } },
    });
    const echoed = await root.get(`/api/channel/test/${echo}`);
    expect(echoed.body).toMatchObject({ success: false, message: 'Incorrect API key provided: sk-***.' });
    expect((await root.get(`/api/channel/fetch_models/${echo}`)).text).not.toContain('sk-up-echo-0123456789');
  });

  it('disables in a health check only after the failure window fills, by the status and keyword rules', async () => {
    const monitor = gw.gateway.app.get(ChannelMonitorService);
    await setOption('AutomaticDisableChannelEnabled', true);
    await setOption('AutomaticEnableChannelEnabled', false);
    await setOption('ChannelDisableFailureCount', '3');
    await setOption('ChannelDisableThreshold', '5');
    // Earlier tests' channels stay out of this cycle's way.
    for (const item of (await root.get('/api/channel/?page_size=100')).body.data.items)
      await root.put('/api/channel/', { id: item.id, status: 2 });
    const requestsOf = (key: string) => up.requests.filter((r) => r.auth === `Bearer ${key}`).length;

    const dead = await create({ key: 'sk-hc-dead' });
    up.faults.set('sk-hc-dead', { status: 401, body: { error: { message: 'invalid api key' } } });
    const blip = await create({ key: 'sk-hc-blip' });
    up.faults.set('sk-hc-blip', { status: 401, times: 1 });
    const serverError = await create({ key: 'sk-hc-500' });
    up.faults.set('sk-hc-500', { status: 500 });
    const broke = await create({ key: 'sk-hc-broke' });
    up.faults.set('sk-hc-broke', { status: 429, body: { error: { message: 'Your credit balance is too low to access the API' } } });
    const slow = await create({ key: 'sk-hc-slow' });
    await setOption('ChannelDisableThreshold', '0.15');
    up.faults.set('sk-hc-slow', { delayMs: 300 });

    const summary = await monitor.runCycle();
    // All five fail their first test; the blip passes its re-test and the 500 is not a disabling failure.
    expect(summary).toMatchObject({ tested: 5, failed: 5, disabled: 3, enabled: 0 });
    // Failing keys are re-tested until the window (3 failures) is full; a passing re-test clears it.
    expect(requestsOf('sk-hc-dead')).toBe(3);
    expect(requestsOf('sk-hc-blip')).toBe(2);
    // A 500 is not in AutomaticDisableStatusCodes and names no keyword: tested once, kept.
    expect(requestsOf('sk-hc-500')).toBe(1);
    expect((await view(dead)).status).toBe(3);
    expect((await view(blip)).status).toBe(1);
    expect((await view(serverError)).status).toBe(1);
    expect(JSON.parse((await view(broke)).other_info).status_reason).toMatch(/credit balance is too low/);
    expect((await view(broke)).status).toBe(3);
    expect(JSON.parse((await view(slow)).other_info).status_reason).toMatch(/exceeds the threshold/);

    // Recovered, but AutomaticEnableChannelEnabled is off: they stay auto-disabled.
    up.faults.clear();
    await setOption('ChannelDisableThreshold', '5');
    expect(await monitor.runCycle()).toMatchObject({ failed: 0, enabled: 0 });
    expect((await view(dead)).status).toBe(3);
    await setOption('AutomaticEnableChannelEnabled', true);
    expect(await monitor.runCycle()).toMatchObject({ failed: 0, enabled: 3 });
    for (const id of [dead, broke, slow]) expect((await view(id)).status).toBe(1);
    await setOption('AutomaticDisableChannelEnabled', false);
  });
});
