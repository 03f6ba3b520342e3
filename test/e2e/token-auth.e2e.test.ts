import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { swapLetterCase } from '../support/letter-case.js';
import { relayError, relayMessage } from '../support/relay-error.js';

/** Creates a token for `client` and returns its id and full key (`sk-…`). */
async function newToken(client: ApiClient, name: string, body: Record<string, unknown> = {}): Promise<{ id: number; key: string }> {
  const created = await client.post('/api/token/', { name, remain_quota: 500000, expired_time: -1, ...body });
  if (!created.body.success) throw new Error(created.text);
  const items = (await client.get(`/api/token/search?keyword=${name}`)).body.data.items as { id: number; name: string }[];
  const id = items.find((t) => t.name === name)!.id;
  return { id, key: (await client.post(`/api/token/${id}/key`)).body.data.key };
}

async function newUser(gw: TestGateway, root: ApiClient, name: string): Promise<ApiClient> {
  expect((await root.post('/api/user/', { username: name, password: 'password-123' })).body.success).toBe(true);
  const client = gw.client();
  expect((await client.login(name, 'password-123')).body.success).toBe(true);
  return client;
}

/** The relay's key check, proven through the billing endpoints that use it. */
describe.each(testDatabases())('relay key check on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let alice: ApiClient;
  let aliceToken: { id: number; key: string };

  const subscription = (headers: Record<string, string>, query = '') =>
    gw.client().get(`/v1/dashboard/billing/subscription${query}`, headers);
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    alice = await newUser(gw, root, 'alice');
    aliceToken = await newToken(alice, 'main', { remain_quota: 250000 });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('accepts every key form', async () => {
    const bare = aliceToken.key.slice(3);
    const forms: [Record<string, string>, string][] = [
      [bearer(aliceToken.key), ''],
      [bearer(bare), ''],
      [{ Authorization: `bearer ${aliceToken.key}` }, ''],
      [{ 'x-api-key': aliceToken.key }, ''],
      [{ 'x-goog-api-key': bare }, ''],
      [{}, `?key=${aliceToken.key}`],
    ];
    for (const [headers, query] of forms) {
      const res = await subscription(headers, query);
      expect(res.status, JSON.stringify(headers) + query).toBe(200);
      expect(res.body).toEqual({
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: 0.5,
        hard_limit_usd: 0.5,
        system_hard_limit_usd: 0.5,
        access_until: 0,
      });
    }
    expect((await gw.client().get('/dashboard/billing/subscription', bearer(aliceToken.key))).status).toBe(200);
  });

  it('refuses a missing or unknown key with an OpenAI error, without echoing the key', async () => {
    const missing = await subscription({});
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
    const wrongKey = `${aliceToken.key.slice(0, -1)}${aliceToken.key.endsWith('a') ? 'b' : 'a'}`;
    const unknown = await subscription(bearer(wrongKey));
    expect(unknown.status).toBe(401);
    expect(relayError(unknown)).toEqual({
      error: { message: 'invalid token', type: 'invalid_request_error', param: '', code: 'invalid_api_key' },
    });
    expect(unknown.text).not.toContain(wrongKey.slice(3, 20));
    // Only the exact key: MySQL's default collation would match it in another letter case.
    expect((await subscription(bearer(`sk-${swapLetterCase(aliceToken.key.replace(/^sk-/, ''))}`))).status).toBe(401);
    expect((await subscription(bearer(`sk-${'x'.repeat(500)}`))).status).toBe(401);
  });

  it('reports usage and token usage in new-api shapes', async () => {
    const usage = await gw.client().get('/v1/dashboard/billing/usage', bearer(aliceToken.key));
    expect(usage.body).toEqual({ object: 'list', total_usage: 0 });
    expect((await gw.client().get('/dashboard/billing/usage', bearer(aliceToken.key))).status).toBe(200);
    const tokenUsage = await gw.client().get('/api/usage/token/', bearer(aliceToken.key));
    expect(tokenUsage.body).toEqual({
      code: true,
      message: 'ok',
      data: {
        object: 'token_usage',
        name: 'main',
        total_granted: 250000,
        total_used: 0,
        total_available: 250000,
        unlimited_quota: false,
        model_limits: {},
        model_limits_enabled: false,
        expires_at: 0,
      },
    });
  });

  it('reports the user balance for an unlimited token, and raw quota when currency display is off', async () => {
    const unlimited = await newToken(alice, 'unlimited', { unlimited_quota: true });
    expect((await root.put('/api/user/', { id: alice.userId, quota: 1_000_000 })).body.success).toBe(true);
    expect((await subscription(bearer(unlimited.key))).body.hard_limit_usd).toBe(2);
    await root.put('/api/option/', { key: 'DisplayInCurrencyEnabled', value: 'false' });
    expect((await subscription(bearer(aliceToken.key))).body.hard_limit_usd).toBe(250000);
    await root.put('/api/option/', { key: 'DisplayInCurrencyEnabled', value: 'true' });
  });

  it('lets only admins pin a channel with sk-KEY-CHANNEL', async () => {
    const refused = await subscription(bearer(`${aliceToken.key}-3`));
    expect(refused.status).toBe(403);
    expect(relayMessage(refused)).toBe('regular users cannot pick a channel');
    const rootToken = await newToken(root, 'admin-key');
    expect((await subscription(bearer(`${rootToken.key}-3`))).status).toBe(200);
    expect((await subscription(bearer(`${rootToken.key}-x`))).status).toBe(400);
  });

  it('refuses a disabled token at once, under every header', async () => {
    const token = await newToken(alice, 'toggled');
    expect((await subscription(bearer(token.key))).status).toBe(200);
    await alice.put('/api/token/?status_only=true', { id: token.id, status: 2 });
    const forms: Record<string, string>[] = [bearer(token.key), { 'x-api-key': token.key }, { 'x-goog-api-key': token.key }];
    for (const headers of forms) {
      const res = await subscription(headers);
      expect(res.status).toBe(401);
      expect(relayMessage(res)).toBe('the token is disabled');
    }
    // The read-only usage route still identifies a disabled token (new-api's TokenAuthReadOnly).
    expect((await gw.client().get('/api/usage/token/', bearer(token.key))).body.code).toBe(true);
    await alice.put('/api/token/?status_only=true', { id: token.id, status: 1 });
    expect((await subscription(bearer(token.key))).status).toBe(200);
  });

  it('refuses a deleted token', async () => {
    const token = await newToken(alice, 'doomed');
    expect((await subscription(bearer(token.key))).status).toBe(200);
    await alice.delete(`/api/token/${token.id}`);
    expect(relayMessage(await subscription(bearer(token.key)))).toBe('invalid token');
  });

  it('refuses an expired token and records status 3', async () => {
    const token = await newToken(alice, 'brief', { expired_time: Math.floor(Date.now() / 1000) + 2 });
    expect((await subscription(bearer(token.key))).status).toBe(200);
    await expect.poll(async () => (await subscription(bearer(token.key))).status, { timeout: 5000, interval: 200 }).toBe(401);
    expect(relayMessage(await subscription(bearer(token.key)))).toBe('the token has expired');
    expect((await alice.get(`/api/token/${token.id}`)).body.data.status).toBe(3);
  });

  it('refuses an exhausted token and records status 4', async () => {
    const token = await newToken(alice, 'nothing', { remain_quota: 0 });
    const res = await subscription(bearer(token.key));
    expect(res.status).toBe(401);
    expect(relayError(res).error).toMatchObject({ message: 'the token quota is exhausted', code: 'insufficient_quota' });
    expect((await alice.get(`/api/token/${token.id}`)).body.data.status).toBe(4);
  });

  it('applies the IP allow-list', async () => {
    const elsewhere = await newToken(alice, 'office', { allow_ips: '10.9.9.9\n192.168.0.0/16' });
    const res = await subscription(bearer(elsewhere.key));
    expect(res.status).toBe(403);
    expect(relayError(res).error).toMatchObject({ message: 'your IP address is not allowed to use this token', code: 'access_denied' });
    expect((await subscription({ 'x-api-key': elsewhere.key })).status).toBe(403);
    const local = await newToken(alice, 'local', { allow_ips: '10.9.9.9, 127.0.0.0/8' });
    expect((await subscription(bearer(local.key))).status).toBe(200);
  });

  it('refuses a disabled user at once, and accepts again once enabled', async () => {
    const carol = await newUser(gw, root, 'carol');
    const token = await newToken(carol, 'carols');
    expect((await subscription(bearer(token.key))).status).toBe(200);
    expect((await root.post('/api/user/manage', { id: carol.userId, action: 'disable' })).body.success).toBe(true);
    const res = await subscription(bearer(token.key));
    expect(res.status).toBe(403);
    expect(relayMessage(res)).toBe('the user is disabled');
    await root.post('/api/user/manage', { id: carol.userId, action: 'enable' });
    expect((await subscription(bearer(token.key))).status).toBe(200);
    await root.post('/api/user/manage', { id: carol.userId, action: 'delete' });
    expect((await subscription(bearer(token.key))).status).toBe(403);
  });

  it('refuses a token whose group the user may no longer use', async () => {
    const token = await newToken(alice, 'vip', { group: 'vip' });
    expect((await subscription(bearer(token.key))).status).toBe(200);
    await root.put('/api/option/', { key: 'UserUsableGroups', value: '{"default":"默认分组"}' });
    expect((await subscription(bearer(token.key))).status).toBe(403);
    await root.put('/api/option/', { key: 'UserUsableGroups', value: '{"default":"默认分组","vip":"vip分组"}' });
    expect((await subscription(bearer(token.key))).status).toBe(200);
  });
});

const shared = Boolean(process.env.TEST_MYSQL_URL && process.env.TEST_REDIS_URL);

/** Two instances on one MariaDB and one Redis: a change on A is seen by B without waiting for the sync. */
describe.runIf(shared)('relay key check across two instances', () => {
  let db: TestDatabase;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    db = await createTestDatabase('mysql');
    const env = { SYNC_FREQUENCY: '3600', REDIS_KEY_PREFIX: `gwtoken:${Date.now()}:` };
    [a, b] = await Promise.all([startTestGateway('mysql', env, db), startTestGateway('mysql', env, db)]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('refuses on B a token disabled on A, and a user disabled on A', async () => {
    const root = await setupRoot(a);
    const dave = await newUser(a, root, 'dave');
    const token = await newToken(dave, 'shared');
    const onB = () => b.client().get('/v1/dashboard/billing/subscription', { Authorization: `Bearer ${token.key}` });
    // B learns the new token on first use (one database read) and caches it.
    expect((await onB()).status).toBe(200);
    expect((await dave.put('/api/token/?status_only=true', { id: token.id, status: 2 })).body.data.status).toBe(2);
    await expect.poll(async () => (await onB()).status, { timeout: 3000, interval: 20 }).toBe(401);
    await dave.put('/api/token/?status_only=true', { id: token.id, status: 1 });
    await expect.poll(async () => (await onB()).status, { timeout: 3000, interval: 20 }).toBe(200);
    await root.post('/api/user/manage', { id: dave.userId, action: 'disable' });
    await expect.poll(async () => (await onB()).status, { timeout: 3000, interval: 20 }).toBe(403);
  });
});
