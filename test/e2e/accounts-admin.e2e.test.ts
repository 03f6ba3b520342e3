import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { INVALID_ACCESS_TOKEN } from '../support/api-client.js';

const SECRET_PATTERN = /password|access_token|webhook_secret|\$2[aby]\$|"secret"/i;

describe.each(testDatabases())('accounts: user administration on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  const ids: Record<string, number> = {};
  const clients: Record<string, ApiClient> = {};
  let rootToken: string;

  async function createUser(username: string, password = 'password-123') {
    const res = await root.post('/api/user/', { username, password, display_name: `${username} name` });
    expect(res.body).toEqual({ success: true, message: '' });
    const found = await root.get(`/api/user/search?keyword=${username}`);
    const row = found.body.data.items.find((u: { username: string }) => u.username === username);
    ids[username] = row.id;
    return row.id as number;
  }
  async function loginAs(username: string, password = 'password-123') {
    const client = gw.client();
    const res = await client.login(username, password);
    expect(res.body.success).toBe(true);
    clients[username] = client;
    return client;
  }

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    ids.root = root.userId!;
    // Give root an access token and a webhook secret, so the leak checks below have something to find.
    rootToken = (await root.get('/api/user/token')).body.data;
    await createUser('alice');
    await createUser('bob');
    await createUser('carol');
    await createUser('adam');
    await createUser('ann_50%');
    expect((await root.post('/api/user/manage', { id: ids.adam, action: 'promote' })).body).toEqual({
      success: true,
      message: '',
      data: { status: 1, role: 10 },
    });
    await loginAs('adam');
    await loginAs('alice');
    await loginAs('bob');
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('validates user creation with the spec messages', async () => {
    const post = (body: object) => root.post('/api/user/', body);
    expect((await post({ username: '', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'username and password cannot be empty',
    });
    expect((await post({ username: 'dave' })).body).toEqual({ success: false, message: 'username and password cannot be empty' });
    expect((await post({ username: 'dave', password: 'short' })).body).toEqual({
      success: false,
      message: 'password length must not be less than 8',
    });
    expect((await post({ username: 'a-very-long-username', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'username must be at most 12 characters',
    });
    expect((await post({ username: 'alice', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'username already exists',
    });
    expect((await post({ username: 42, password: 'password-123' })).body.success).toBe(false);
    // Unknown fields such as role are ignored: the new user is a regular user.
    expect((await post({ username: 'eve', password: 'password-123', role: 100, quota: 999 })).body.success).toBe(true);
    const eve = (await root.get('/api/user/search?keyword=eve')).body.data.items[0];
    expect(eve).toMatchObject({ username: 'eve', role: 1, quota: 0, display_name: 'eve' });
    ids.eve = eve.id;
  });

  it('lists users newest first with paging, never leaking secrets', async () => {
    const page1 = await root.get('/api/user/?p=1&page_size=2');
    expect(page1.body.success).toBe(true);
    expect(page1.body.data).toMatchObject({ page: 1, page_size: 2, total: 7 });
    expect(page1.body.data.items).toHaveLength(2);
    const all = await root.get('/api/user/?p=1&page_size=100');
    const list = all.body.data.items as { id: number }[];
    expect(list.map((u) => u.id)).toEqual([...list.map((u) => u.id)].sort((a, b) => b - a));
    expect(list[0]).toHaveProperty('DeletedAt', null);
    expect(all.text).not.toMatch(SECRET_PATTERN);
    expect(all.text).not.toContain(rootToken);
    const page2 = await root.get('/api/user/?p=2&page_size=2');
    expect(page2.body.data.items[0].id).toBe(list[2]!.id);
  });

  it('searches by keyword (with escaped wildcards) and group', async () => {
    const a = await root.get('/api/user/search?keyword=ar');
    expect(a.body.data.items.map((u: { username: string }) => u.username)).toEqual(['carol']);
    const byDisplay = await root.get('/api/user/search?keyword=bob%20name');
    expect(byDisplay.body.data.items.map((u: { username: string }) => u.username)).toEqual(['bob']);
    const pct = await root.get(`/api/user/search?keyword=${encodeURIComponent('%')}`);
    expect(pct.body.data.items.map((u: { username: string }) => u.username)).toEqual(['ann_50%']);
    const under = await root.get('/api/user/search?keyword=_');
    expect(under.body.data.items.map((u: { username: string }) => u.username)).toEqual(['ann_50%']);
    const byId = await root.get(`/api/user/search?keyword=${ids.bob}`);
    expect(byId.body.data.items.map((u: { id: number }) => u.id)).toContain(ids.bob);
    const vip = await root.get('/api/user/search?keyword=&group=vip');
    expect(vip.body.data).toMatchObject({ total: 0, items: [] });
    expect(a.text).not.toMatch(SECRET_PATTERN);
  });

  it('shows one user, refusing same or higher roles except to root', async () => {
    const adam = clients.adam!;
    const own = await adam.get(`/api/user/${ids.alice}`);
    expect(own.body).toMatchObject({ success: true, data: { id: ids.alice, username: 'alice', role: 1 } });
    expect(own.text).not.toMatch(SECRET_PATTERN);
    expect((await adam.get(`/api/user/${ids.root}`)).body.success).toBe(false);
    expect((await adam.get(`/api/user/${ids.adam}`)).body.success).toBe(false);
    expect((await root.get(`/api/user/${ids.adam}`)).body.data.role).toBe(10);
    const rootView = await root.get(`/api/user/${ids.root}`);
    expect(rootView.body.data.role).toBe(100);
    expect(rootView.text).not.toMatch(SECRET_PATTERN);
    expect(rootView.text).not.toContain(rootToken);
    expect((await root.get('/api/user/99999')).body).toEqual({ success: false, message: 'user does not exist' });
    expect((await root.get('/api/user/abc')).body.success).toBe(false);
  });

  it('refuses every admin route to regular users and anonymous callers', async () => {
    const alice = clients.alice!;
    for (const [method, path, body] of [
      ['get', '/api/user/', undefined],
      ['get', '/api/user/search?keyword=a', undefined],
      ['get', `/api/user/${ids.bob}`, undefined],
      ['post', '/api/user/', { username: 'x1', password: 'password-123' }],
      ['put', '/api/user/', { id: ids.bob, quota: 5 }],
      ['post', '/api/user/manage', { id: ids.bob, action: 'disable' }],
      ['get', '/api/group/', undefined],
    ] as const) {
      const res = await (alice as any)[method](path, body);
      expect(res.body.success, `${method} ${path}`).toBe(false);
      const anon = await (gw.client() as any)[method](path, body);
      expect(anon.status, `${method} ${path}`).toBe(401);
    }
    expect((await root.get(`/api/user/${ids.bob}`)).body.data.quota).toBe(0);
  });

  it('updates users with validation and role rules', async () => {
    const put = (client: ApiClient, body: object) => client.put('/api/user/', body);
    expect((await put(root, { id: ids.bob, display_name: 'Bobby', group: 'vip', quota: 1234, remark: 'note' })).body).toEqual({
      success: true,
      message: '',
    });
    expect((await root.get(`/api/user/${ids.bob}`)).body.data).toMatchObject({
      display_name: 'Bobby',
      group: 'vip',
      quota: 1234,
      remark: 'note',
    });
    expect((await put(root, { id: ids.bob, quota: 1.5 })).body).toEqual({ success: false, message: 'quota must be an integer' });
    expect((await put(root, { id: ids.bob, quota: '100' })).body).toEqual({ success: false, message: 'quota must be an integer' });
    expect((await put(root, { id: ids.bob, password: 'short' })).body).toEqual({
      success: false,
      message: 'password length must not be less than 8',
    });
    expect((await put(root, { id: ids.bob, username: 'alice' })).body).toEqual({ success: false, message: 'username already exists' });
    expect((await put(root, { quota: 1 })).body.success).toBe(false);
    expect((await put(root, { id: 99999, quota: 1 })).body).toEqual({ success: false, message: 'user does not exist' });
    // Role is not an editable field.
    expect((await put(root, { id: ids.bob, role: 100 })).body.success).toBe(true);
    expect((await root.get(`/api/user/${ids.bob}`)).body.data.role).toBe(1);
    // An admin edits regular users only.
    const adam = clients.adam!;
    expect((await put(adam, { id: ids.carol, display_name: 'Caz' })).body.success).toBe(true);
    expect((await put(adam, { id: ids.root, display_name: 'pwned' })).body.success).toBe(false);
    expect((await put(adam, { id: ids.adam, quota: 999999 })).body.success).toBe(false);
    expect((await root.get(`/api/user/${ids.root}`)).body.data.display_name).toBe('Root User');
  });

  it('ends sessions when an admin sets a new password', async () => {
    const bob = await loginAs('bob');
    const byToken = gw.client();
    byToken.headers = { Authorization: (await bob.get('/api/user/token')).body.data, 'New-Api-User': String(ids.bob) };
    expect((await byToken.get('/api/user/self')).status).toBe(200);
    expect((await root.put('/api/user/', { id: ids.bob, password: 'new-password-1' })).body.success).toBe(true);
    expect((await bob.get('/api/user/self')).status).toBe(401);
    expect((await byToken.get('/api/user/self')).body).toEqual(INVALID_ACCESS_TOKEN);
    await loginAs('bob', 'new-password-1');
  });

  it('applies the manage matrix', async () => {
    const adam = clients.adam!;
    const manage = (client: ApiClient, id: number, action: string) => client.post('/api/user/manage', { id, action });
    // admin -> admin (itself included) / root: every action refused.
    for (const action of ['promote', 'demote', 'disable', 'enable', 'delete']) {
      expect((await manage(adam, ids.adam!, action)).body, `self ${action}`).toEqual({
        success: false,
        message: 'no permission to manage users of the same or higher role',
      });
      expect((await manage(adam, ids.root!, action)).body, `root ${action}`).toEqual({
        success: false,
        message: 'no permission to manage users of the same or higher role',
      });
    }
    expect((await root.get(`/api/user/${ids.adam}`)).body.data).toMatchObject({ role: 10, status: 1 });
    // admin -> user: only root promotes.
    expect((await manage(adam, ids.carol!, 'promote')).body).toEqual({
      success: false,
      message: 'only the super admin can promote users to admin',
    });
    expect((await manage(adam, ids.carol!, 'demote')).body).toEqual({ success: false, message: 'the user is already a common user' });
    // root -> root: refused; the super admin is never disabled, deleted or demoted.
    for (const action of ['disable', 'delete', 'demote', 'promote']) {
      expect((await manage(root, ids.root!, action)).body.success, action).toBe(false);
    }
    expect((await manage(root, ids.adam!, 'promote')).body).toEqual({ success: false, message: 'the user is already an admin' });
    expect((await manage(root, ids.carol!, 'nuke')).body).toEqual({ success: false, message: 'invalid action' });
    expect((await manage(root, 99999, 'disable')).body).toEqual({ success: false, message: 'user does not exist' });
    // promote then demote (root -> user, root -> admin); a live session gains and loses the role at once.
    const carol = await loginAs('carol');
    expect((await carol.get('/api/user/')).body.success).toBe(false);
    expect((await manage(root, ids.carol!, 'promote')).body.data).toEqual({ status: 1, role: 10 });
    expect((await carol.get('/api/user/')).body.success).toBe(true);
    expect((await manage(root, ids.carol!, 'demote')).body.data).toEqual({ status: 1, role: 1 });
    expect((await carol.get('/api/user/')).body.success).toBe(false);
    expect((await root.get(`/api/user/${ids.carol}`)).body.data.role).toBe(1);
    const still = await root.get(`/api/user/${ids.root}`);
    expect(still.body.data).toMatchObject({ role: 100, status: 1 });
  });

  it('disabling ends sessions and access tokens at once; enabling restores login', async () => {
    const alice = clients.alice!;
    const token = (await alice.get('/api/user/token')).body.data as string;
    const byToken = gw.client();
    byToken.headers = { Authorization: token, 'New-Api-User': String(ids.alice) };
    expect((await byToken.get('/api/user/self')).status).toBe(200);
    expect((await clients.adam!.post('/api/user/manage', { id: ids.alice, action: 'disable' })).body.data).toEqual({ status: 2, role: 1 });
    expect((await alice.get('/api/user/self')).status).toBe(401);
    expect((await byToken.get('/api/user/self')).body).toEqual(INVALID_ACCESS_TOKEN);
    expect((await gw.client().login('alice', 'password-123')).body.success).toBe(false);
    expect((await root.post('/api/user/manage', { id: ids.alice, action: 'enable' })).body.data).toEqual({ status: 1, role: 1 });
    expect((await byToken.get('/api/user/self')).body).toEqual(INVALID_ACCESS_TOKEN);
    await loginAs('alice');
  });

  it('soft-deletes: sessions end, the row stays listed with DeletedAt, the name stays taken', async () => {
    const eve = await loginAs('eve');
    const token = (await eve.get('/api/user/token')).body.data as string;
    const byToken = gw.client();
    byToken.headers = { Authorization: token, 'New-Api-User': String(ids.eve) };
    expect((await byToken.get('/api/user/self')).status).toBe(200);
    expect((await root.post('/api/user/manage', { id: ids.eve, action: 'delete' })).body).toEqual({
      success: true,
      message: '',
      data: { status: 1, role: 1 },
    });
    expect((await eve.get('/api/user/self')).status).toBe(401);
    expect((await byToken.get('/api/user/self')).body).toEqual(INVALID_ACCESS_TOKEN);
    expect((await gw.client().login('eve', 'password-123')).body.success).toBe(false);
    const list = (await root.get('/api/user/?page_size=100')).body.data.items as { id: number; DeletedAt: string | null }[];
    expect(list.find((u) => u.id === ids.eve)!.DeletedAt).toEqual(expect.any(String));
    expect((await root.get(`/api/user/${ids.eve}`)).body.data.DeletedAt).toEqual(expect.any(String));
    expect((await root.post('/api/user/', { username: 'eve', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'username already exists',
    });
    expect((await root.post('/api/user/manage', { id: ids.eve, action: 'enable' })).body).toEqual({
      success: false,
      message: 'user does not exist',
    });
  });

  it('keeps literal /api/user/* routes reachable next to /api/user/:id', async () => {
    const client = await loginAs('carol');
    expect((await client.get('/api/user/self')).body.data.username).toBe('carol');
    expect((await client.get('/api/user/models')).body.success).toBe(true);
    expect((await gw.client().get('/api/user/groups')).body.success).toBe(true);
    expect((await client.get('/api/user/logout')).body).toEqual({ success: true, message: '' });
    expect((await client.get('/api/user/self')).status).toBe(401);
  });

  it('lists groups from GroupRatio', async () => {
    expect((await clients.adam!.get('/api/group/')).body).toEqual({ success: true, message: '', data: ['default', 'vip', 'svip'] });
    await root.put('/api/option/', { key: 'GroupRatio', value: '{"default":1,"pro":2}' });
    expect((await root.get('/api/group')).body.data).toEqual(['default', 'pro']);
    await root.put('/api/option/', { key: 'GroupRatio', value: '{"default":1,"vip":1,"svip":1}' });
  });
});
