import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const MASKED = /^[A-Za-z0-9]{4}\*{10}[A-Za-z0-9]{4}$/;
const future = () => Math.floor(Date.now() / 1000) + 3600;

describe.each(testDatabases())('token console routes on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let alice: ApiClient;
  let bob: ApiClient;

  async function newUser(name: string): Promise<ApiClient> {
    expect((await root.post('/api/user/', { username: name, password: 'password-123' })).body.success).toBe(true);
    const client = gw.client();
    expect((await client.login(name, 'password-123')).body.success).toBe(true);
    return client;
  }

  async function create(client: ApiClient, body: Record<string, unknown>) {
    return client.post('/api/token/', { name: 'tok', remain_quota: 500000, expired_time: -1, ...body });
  }

  async function idOf(client: ApiClient, name: string): Promise<number> {
    const items = (await client.get(`/api/token/search?keyword=${encodeURIComponent(name)}`)).body.data.items as {
      id: number;
      name: string;
    }[];
    const found = items.find((t) => t.name === name);
    if (!found) throw new Error(`no token ${name}`);
    return found.id;
  }

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    alice = await newUser('alice');
    bob = await newUser('bob');
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('creates a token and lists it with a masked key and new-api fields', async () => {
    const res = await create(alice, {
      name: 'first',
      remain_quota: 1000,
      model_limits_enabled: true,
      model_limits: 'gpt-4o, gpt-4o-mini',
      allow_ips: '127.0.0.1\n10.0.0.0/8',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true });
    const list = await alice.get('/api/token/?p=1&size=10');
    expect(list.body.data).toMatchObject({ total: 1, page: 1, page_size: 10 });
    const token = list.body.data.items[0];
    expect(token).toMatchObject({
      name: 'first',
      status: 1,
      remain_quota: 1000,
      used_quota: 0,
      unlimited_quota: false,
      expired_time: -1,
      model_limits_enabled: true,
      model_limits: 'gpt-4o,gpt-4o-mini',
      allow_ips: '127.0.0.1\n10.0.0.0/8',
      group: '',
      user_id: alice.userId,
    });
    expect(token.key).toMatch(MASKED);
    expect(token.created_time).toBeGreaterThan(0);
    expect((await alice.get(`/api/token/${token.id}`)).body.data.key).toMatch(MASKED);
  });

  it('reveals the full key only to the owner', async () => {
    const id = await idOf(alice, 'first');
    const reveal = await alice.post(`/api/token/${id}/key`);
    expect(reveal.body.data.key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    const masked = (await alice.get(`/api/token/${id}`)).body.data.key as string;
    expect(masked.slice(0, 4)).toBe(reveal.body.data.key.slice(3, 7));
    expect(masked.slice(-4)).toBe(reveal.body.data.key.slice(-4));
    expect(reveal.headers.get('cache-control')).toBe('no-store');
  });

  it('reveals several keys at once, own tokens only', async () => {
    const id = await idOf(alice, 'first');
    const bobsOwn = await create(bob, { name: 'bob-key' });
    expect(bobsOwn.body.success).toBe(true);
    const bobsId = (await bob.get('/api/token/')).body.data.items[0].id;
    const res = await alice.post('/api/token/batch/keys', { ids: [id, bobsId] });
    expect(Object.keys(res.body.data.keys)).toEqual([String(id)]);
    expect(res.body.data.keys[id]).toBe((await alice.post(`/api/token/${id}/key`)).body.data.key);
    expect((await alice.post('/api/token/batch/keys', { ids: Array.from({ length: 101 }, (_, i) => i + 1) })).body).toEqual({
      success: false,
      message: 'at most 100 tokens at once',
    });
    await bob.delete(`/api/token/${bobsId}`);
  });

  it('answers not found for another user’s token on every route, and never shows its data', async () => {
    const id = await idOf(alice, 'first');
    const calls = [
      await bob.get(`/api/token/${id}`),
      await bob.post(`/api/token/${id}/key`),
      await bob.put('/api/token/', { id, name: 'stolen', remain_quota: 1, expired_time: -1 }),
      await bob.put('/api/token/?status_only=true', { id, status: 2 }),
      await bob.delete(`/api/token/${id}/`),
    ];
    for (const res of calls) {
      expect(res.body).toEqual({ success: false, message: 'token not found' });
      expect(res.text).not.toContain('first');
    }
    expect((await bob.post('/api/token/batch', { ids: [id] })).body).toMatchObject({ success: true, data: 0 });
    expect((await bob.get('/api/token/')).body.data.total).toBe(0);
    expect((await alice.get(`/api/token/${id}`)).body.data).toMatchObject({ name: 'first', status: 1 });
    expect((await alice.get('/api/token/abc')).body).toEqual({ success: false, message: 'token not found' });
  });

  it.each([
    [{ name: '' }, 'name is required'],
    [{ name: undefined }, 'name is required'],
    [{ name: 'x'.repeat(51) }, 'token name is too long (at most 50 characters)'],
    [{ remain_quota: -1 }, 'remain_quota must be a non-negative integer'],
    [{ remain_quota: 1.5 }, 'remain_quota must be a non-negative integer'],
    [{ remain_quota: 'lots' }, 'remain_quota must be a non-negative integer'],
    [{ expired_time: 'tomorrow' }, 'expiry time format error'],
    [{ expired_time: 1.5 }, 'expiry time format error'],
    [{ expired_time: -5 }, 'expiry time format error'],
    [{ expired_time: 1000 }, 'the expiry time must be in the future (or -1 for never)'],
    [{ allow_ips: '1.2.3.4\nexample.com' }, "allow_ips: 'example.com' is not an IP address or CIDR range"],
    [{ allow_ips: '10.0.0.0/33' }, "allow_ips: '10.0.0.0/33' is not an IP address or CIDR range"],
    [{ group: 'secret-group' }, "you are not allowed to use the group 'secret-group'"],
    [{ count: 0 }, 'count must be an integer from 1 to 100'],
    [{ count: 101 }, 'count must be an integer from 1 to 100'],
    [{ unlimited_quota: 'yes' }, 'unlimited_quota must be true or false'],
    [{ model_limits_enabled: true, model_limits: '' }, 'select at least one model when model limits are enabled'],
  ])('refuses %j with a clear message', async (body, message) => {
    const res = await create(alice, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: false, message });
  });

  it('ignores fields the client may not set', async () => {
    await create(alice, { name: 'sneaky', user_id: bob.userId, used_quota: 999, key: 'a'.repeat(48), status: 2, id: 1 });
    const id = await idOf(alice, 'sneaky');
    const token = (await alice.get(`/api/token/${id}`)).body.data;
    expect(token).toMatchObject({ user_id: alice.userId, used_quota: 0, status: 1 });
    expect((await alice.post(`/api/token/${id}/key`)).body.data.key).not.toBe(`sk-${'a'.repeat(48)}`);
  });

  it('creates several with a random 6-character suffix', async () => {
    expect((await create(alice, { name: 'batch', count: 3 })).body.success).toBe(true);
    const items = (await alice.get('/api/token/search?keyword=batch')).body.data.items as { name: string }[];
    const names = items.map((t) => t.name).sort();
    expect(names).toHaveLength(3);
    expect(names).toContain('batch');
    for (const name of names.filter((n) => n !== 'batch')) expect(name).toMatch(/^batch-[A-Za-z0-9]{6}$/);
    expect(new Set(names).size).toBe(3);
  });

  it('accepts usable groups only: UserUsableGroups and the user’s own group', async () => {
    expect((await create(alice, { name: 'vip-token', group: 'vip' })).body.success).toBe(true);
    expect((await create(alice, { name: 'own-group', group: 'default' })).body.success).toBe(true);
    await root.put('/api/option/', { key: 'UserUsableGroups', value: '{"default":"默认分组"}' });
    expect((await create(alice, { name: 'vip-again', group: 'vip' })).body).toEqual({
      success: false,
      message: "you are not allowed to use the group 'vip'",
    });
    await root.put('/api/option/', { key: 'UserUsableGroups', value: '{"default":"默认分组","vip":"vip分组"}' });
  });

  it('searches own tokens by name and by key, paged', async () => {
    const id = await idOf(alice, 'first');
    const key = (await alice.post(`/api/token/${id}/key`)).body.data.key as string;
    const byKey = await alice.get(`/api/token/search?token=${key.slice(3, 20)}`);
    expect(byKey.body.data.items.map((t: { id: number }) => t.id)).toEqual([id]);
    expect((await alice.get(`/api/token/search?token=${key}`)).body.data.items).toHaveLength(1);
    expect((await alice.get('/api/token/search?keyword=%25')).body.data.items).toHaveLength(0);
    expect((await bob.get(`/api/token/search?token=${key.slice(3, 20)}`)).body.data.items).toHaveLength(0);
    const paged = await alice.get('/api/token/search?keyword=batch&p=2&page_size=2');
    expect(paged.body.data).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(paged.body.data.items).toHaveLength(1);
  });

  it('updates a token fully with the same validation, and returns it masked', async () => {
    const id = await idOf(alice, 'first');
    const expiry = future();
    const res = await alice.put('/api/token/', {
      id,
      name: 'renamed',
      remain_quota: 42,
      unlimited_quota: true,
      expired_time: expiry,
      allow_ips: '',
      model_limits_enabled: false,
      model_limits: '',
      group: 'vip',
    });
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({
      id,
      name: 'renamed',
      remain_quota: 42,
      unlimited_quota: true,
      expired_time: expiry,
      allow_ips: '',
      group: 'vip',
    });
    expect(res.body.data.key).toMatch(MASKED);
    expect((await alice.put('/api/token/', { id, name: '', expired_time: -1 })).body).toEqual({
      success: false,
      message: 'name is required',
    });
    expect((await alice.put('/api/token/', { id, name: 'x', expired_time: 5 })).body).toEqual({
      success: false,
      message: 'the expiry time must be in the future (or -1 for never)',
    });
    expect((await alice.put('/api/token/', { name: 'x' })).body).toEqual({ success: false, message: 'invalid token id' });
  });

  it('toggles status between enabled and disabled only', async () => {
    const id = await idOf(alice, 'renamed');
    expect((await alice.put('/api/token/?status_only=true', { id, status: 2 })).body.data).toMatchObject({ id, status: 2 });
    expect((await alice.put('/api/token/?status_only=true', { id, status: 1 })).body.data).toMatchObject({ id, status: 1 });
    for (const status of [3, 4, 0, 'x']) {
      expect((await alice.put('/api/token/?status_only=true', { id, status })).body).toEqual({
        success: false,
        message: 'status can only be 1 (enabled) or 2 (disabled)',
      });
    }
  });

  it('keeps an exhausted token off until its quota is raised', async () => {
    await create(alice, { name: 'empty', remain_quota: 0 });
    const id = await idOf(alice, 'empty');
    // Reading it records that it has reached "exhausted".
    expect((await alice.get(`/api/token/${id}`)).body.data.status).toBe(4);
    const refused = await alice.put('/api/token/?status_only=true', { id, status: 1 });
    expect(refused.body).toEqual({
      success: false,
      message: 'the token quota is used up and cannot be enabled: raise its remaining quota first (or make it unlimited)',
    });
    expect((await alice.put('/api/token/', { id, name: 'empty', remain_quota: 10, expired_time: -1 })).body.data.status).toBe(4);
    expect((await alice.put('/api/token/?status_only=true', { id, status: 1 })).body.data.status).toBe(1);
  });

  it('keeps an expired token off until its expiry is changed', async () => {
    const soon = Math.floor(Date.now() / 1000) + 2;
    await create(alice, { name: 'short', expired_time: soon });
    const id = await idOf(alice, 'short');
    await expect.poll(async () => (await alice.get(`/api/token/${id}`)).body.data.status, { timeout: 5000, interval: 200 }).toBe(3);
    expect((await alice.put('/api/token/?status_only=true', { id, status: 1 })).body).toEqual({
      success: false,
      message: 'the token has expired and cannot be enabled: change its expiry time first (or set it to never expire)',
    });
    // Editing other fields keeps the (past) expiry; changing it to "never" allows enabling again.
    expect((await alice.put('/api/token/', { id, name: 'short2', remain_quota: 5, expired_time: soon })).body.success).toBe(true);
    expect((await alice.put('/api/token/', { id, name: 'short2', remain_quota: 5, expired_time: -1 })).body.success).toBe(true);
    expect((await alice.put('/api/token/?status_only=true', { id, status: 1 })).body.data.status).toBe(1);
  });

  it('deletes one token, and several in a batch ignoring foreign ids', async () => {
    const one = await idOf(alice, 'sneaky');
    expect((await alice.delete(`/api/token/${one}/`)).body).toMatchObject({ success: true });
    expect((await alice.get(`/api/token/${one}`)).body).toEqual({ success: false, message: 'token not found' });
    expect((await alice.delete(`/api/token/${one}`)).body).toEqual({ success: false, message: 'token not found' });

    await create(bob, { name: 'bobs' });
    const bobs = await idOf(bob, 'bobs');
    const batch = ((await alice.get('/api/token/search?keyword=batch')).body.data.items as { id: number }[]).map((t) => t.id);
    const res = await alice.post('/api/token/batch', { ids: [...batch, bobs, 999999] });
    expect(res.body).toMatchObject({ success: true, data: 3 });
    expect((await alice.get('/api/token/search?keyword=batch')).body.data.total).toBe(0);
    expect((await bob.get(`/api/token/${bobs}`)).body.data.name).toBe('bobs');
    expect((await alice.post('/api/token/batch', { ids: [] })).body).toEqual({
      success: false,
      message: 'please select at least one token',
    });
  });

  it('needs a login', async () => {
    expect((await gw.client().get('/api/token/')).status).toBe(401);
  });
});

describe('token route rate limits', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway('sqlite', { SEARCH_RATE_LIMIT: '2', CRITICAL_RATE_LIMIT: '5' });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('limits token search (per user) and key reveal (critical, per IP), not the admin searches', async () => {
    // Setup and the two logins use 3 of the 5 critical calls.
    const root = await setupRoot(gw);
    await root.post('/api/token/', { name: 'limited', remain_quota: 1, expired_time: -1 });
    expect((await root.post('/api/user/', { username: 'neighbour', password: 'neighbour-pass' })).body.success).toBe(true);
    const neighbour = gw.client();
    expect((await neighbour.login('neighbour', 'neighbour-pass')).body.success).toBe(true);
    const searches = [];
    for (let i = 0; i < 3; i++) searches.push((await root.get('/api/token/search?keyword=limited')).status);
    expect(searches).toEqual([200, 200, 429]);
    // Per user id, as new-api: another user on the same address still has their own searches.
    const theirs = [];
    for (let i = 0; i < 3; i++) theirs.push((await neighbour.get('/api/token/search?keyword=limited')).status);
    expect(theirs).toEqual([200, 200, 429]);
    // new-api limits only the token search (and the deprecated log search): an admin paging a filtered user
    // or channel list calls search on every page change and refresh, so those are not limited.
    for (const path of ['/api/user/search?keyword=root', '/api/channel/search?keyword=x']) {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await root.get(path)).status);
      expect(statuses, path).toEqual([200, 200, 200, 200]);
    }
    const id = (await root.get('/api/token/')).body.data.items[0].id;
    const reveals = [];
    for (let i = 0; i < 3; i++) reveals.push((await root.post(`/api/token/${id}/key`)).status);
    expect(reveals).toEqual([200, 200, 429]);
  });
});
