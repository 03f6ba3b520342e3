import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { ROOT, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { relayMessage } from '../support/relay-error.js';

describe.each(testDatabases())('foundation on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('reports setup not done on a fresh database', async () => {
    const status = await gw.client().get('/api/status');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ success: true, data: { setup: false, quota_per_unit: 500000, system_name: expect.any(String) } });
    // new-api's fields for features the gateway lacks, with the values new-api gives while they are off or unset.
    expect(status.body.data).toMatchObject({
      custom_currency_symbol: '¤',
      custom_currency_exchange_rate: 1,
      stripe_unit_price: 8,
      HeaderNavModules: '',
      SidebarModulesAdmin: '',
    });
    const setup = await gw.client().get('/api/setup');
    expect(setup.body).toEqual({ success: true, data: { status: false, root_init: false, database_type: kind } });
  });

  it('validates the setup form with the spec messages', async () => {
    const anon = gw.client();
    const post = (body: object) => anon.post('/api/setup', body);
    expect((await post({ username: '', password: '12345678', confirmPassword: '12345678' })).body).toEqual({
      success: false,
      message: '请输入管理员用户名',
    });
    expect((await post({ username: 'root', password: 'short', confirmPassword: 'short' })).body).toEqual({
      success: false,
      message: '密码长度至少为8个字符',
    });
    expect((await post({ username: 'root', password: '12345678', confirmPassword: '87654321' })).body).toEqual({
      success: false,
      message: '两次输入的密码不一致',
    });
    expect((await post({ username: 'a-very-long-name', password: '12345678', confirmPassword: '12345678' })).body.success).toBe(false);
    expect((await post({ username: 42 })).body.success).toBe(false);
  });

  it('completes setup once and refuses a second setup', async () => {
    const anon = gw.client();
    const first = await anon.post('/api/setup', {
      ...ROOT,
      confirmPassword: ROOT.password,
      SelfUseModeEnabled: true,
      DemoSiteEnabled: false,
    });
    expect(first.body).toEqual({ success: true, message: '系统初始化成功' });
    const second = await anon.post('/api/setup', { username: 'other', password: 'another-pass', confirmPassword: 'another-pass' });
    expect(second.body).toMatchObject({ success: false });
    const status = await anon.get('/api/status');
    expect(status.body.data).toMatchObject({ setup: true, self_use_mode_enabled: true, demo_site_enabled: false });
    expect((await anon.get('/api/setup')).body.data.status).toBe(true);
  });

  it('logs in with username and rejects wrong passwords with one message', async () => {
    const wrong = await gw.client().login(ROOT.username, 'wrong-password');
    const unknown = await gw.client().login('nobody', 'wrong-password');
    expect(wrong.body.success).toBe(false);
    expect(unknown.body.message).toBe(wrong.body.message);
    expect((await gw.client().post('/api/user/login', {})).body).toEqual({ success: false, message: 'please enter username and password' });

    root = gw.client();
    const ok = await root.login(ROOT.username, ROOT.password);
    expect(ok.body).toMatchObject({ success: true, data: { username: 'root', role: 100, status: 1, group: 'default' } });
    const cookie = ok.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^session=[^;]+; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Strict/);
  });

  it('issues a new session id on every login', async () => {
    const client = gw.client();
    await client.login(ROOT.username, ROOT.password);
    const firstCookie = client.cookie;
    await client.login(ROOT.username, ROOT.password);
    expect(client.cookie).not.toBe(firstCookie);
    const stale = gw.client();
    stale.cookie = firstCookie;
    stale.userId = client.userId;
    expect((await stale.get('/api/user/self')).status).toBe(401);
  });

  it('checks the New-Api-User header: missing, wrong, right', async () => {
    const missing = await root.get('/api/user/self', { 'New-Api-User': '' });
    expect(missing.status).toBe(401);
    expect(missing.body.success).toBe(false);
    expect((await root.get('/api/user/self', { 'New-Api-User': '999' })).status).toBe(401);
    expect((await root.get('/api/user/self', { 'New-Api-User': 'abc' })).status).toBe(401);
    const right = await root.get('/api/user/self');
    expect(right.status).toBe(200);
    expect(right.body.data).toMatchObject({ id: root.userId, username: 'root', role: 100, quota: 100000000 });
    expect(JSON.stringify(right.body)).not.toMatch(/password|access_token|\$2[aby]\$/);
  });

  it('lets root change an option and status reflects it', async () => {
    const list = await root.get('/api/option/');
    expect(list.body.success).toBe(true);
    const keys = (list.body.data as { key: string }[]).map((item) => item.key);
    expect(keys).toContain('QuotaPerUnit');
    expect(keys).not.toContain('SMTPToken');
    expect(keys).not.toContain('EpayKey');

    expect((await root.put('/api/option/', { key: 'SystemName', value: 'My Gateway' })).body).toEqual({ success: true, message: '' });
    expect((await root.put('/api/option', { key: 'DisplayInCurrencyEnabled', value: false })).body.success).toBe(true);
    const status = await gw.client().get('/api/status');
    expect(status.body.data).toMatchObject({ system_name: 'My Gateway', display_in_currency: false });

    expect((await root.put('/api/option/', { key: 'Notice', value: '公告 🚀 <b>hi</b>' })).body.success).toBe(true);
    expect((await gw.client().get('/api/notice')).body).toEqual({ success: true, message: '', data: '公告 🚀 <b>hi</b>' });
  });

  it('validates option values', async () => {
    expect((await root.put('/api/option/', { key: 'ModelRatio', value: '{not json' })).body).toEqual({
      success: false,
      message: 'ModelRatio is not a valid JSON string',
    });
    expect((await root.put('/api/option/', { key: 'RegisterEnabled', value: 'maybe' })).body.success).toBe(false);
    expect((await root.put('/api/option/', { key: 'DataExportInterval', value: '0' })).body.success).toBe(false);
    expect((await root.put('/api/option/', { key: 'NoSuchKey', value: '1' })).body).toEqual({
      success: false,
      message: 'unknown option: NoSuchKey',
    });
    expect((await root.put('/api/option/', { value: '1' })).body.success).toBe(false);
  });

  it('refuses options to a non-root user', async () => {
    const anon = gw.client();
    expect((await anon.get('/api/option/')).status).toBe(401);
    expect((await anon.put('/api/option/', { key: 'SystemName', value: 'x' })).status).toBe(401);
  });

  it('answers bad input with a clear 4xx, never a 500', async () => {
    const anon = gw.client();
    const malformed = await anon.raw('POST', '/api/user/login', '{"username": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ success: false, message: 'request body is not valid JSON' });
    const wrongTypes = await anon.post('/api/user/login', { username: ['a'], password: { b: 1 } });
    expect(wrongTypes.status).toBe(200);
    expect(wrongTypes.body.success).toBe(false);
    const unknownRoute = await anon.get('/api/does-not-exist');
    expect(unknownRoute.status).toBe(404);
    expect(unknownRoute.body).toMatchObject({ success: false });
    expect(unknownRoute.headers.get('cache-control')).toBe('no-store');
    expect(unknownRoute.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('rejects bodies over MAX_REQUEST_BODY_MB with 413', async () => {
    const small = await startTestGateway(kind, { MAX_REQUEST_BODY_MB: '1' });
    try {
      await setupAndLogin(small);
      const big = JSON.stringify({ username: 'x'.repeat(1_200_000), password: 'y' });
      const res = await small.client().raw('POST', '/api/user/login', big);
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ success: false, message: 'request body is too large' });
      // The relay checks the key before it reads a body (a stranger's large body is never buffered).
      const stranger = await small.client().raw('POST', '/v1/chat/completions', big);
      expect(stranger.status).toBe(401);
      const admin = small.client();
      await admin.login(ROOT.username, ROOT.password);
      const created = await admin.post('/api/token/', { name: 'big', remain_quota: 0, unlimited_quota: true, expired_time: -1 });
      expect(created.body.success).toBe(true);
      const tokenId = (await admin.get('/api/token/?p=1&size=10')).body.data.items[0].id;
      const key = (await admin.post(`/api/token/${tokenId}/key`, {})).body.data.key as string;
      const relay = await small.client().raw('POST', '/v1/chat/completions', big, { authorization: `Bearer ${key}` });
      expect(relay.status).toBe(413);
      expect(relayMessage(relay)).toBe('request body is too large');
    } finally {
      await small.close();
    }
  });

  it('logs out and then answers 401', async () => {
    const client = gw.client();
    await client.login(ROOT.username, ROOT.password);
    expect((await client.get('/api/user/self')).status).toBe(200);
    const cookie = client.cookie;
    expect((await client.get('/api/user/logout')).body).toEqual({ success: true, message: '' });
    expect((await client.get('/api/user/self')).status).toBe(401);
    const replay = gw.client();
    replay.cookie = cookie;
    replay.userId = client.userId;
    expect((await replay.get('/api/user/self')).status).toBe(401);
  });
});

async function setupAndLogin(gw: TestGateway) {
  await gw.client().post('/api/setup', { ...ROOT, confirmPassword: ROOT.password });
}
