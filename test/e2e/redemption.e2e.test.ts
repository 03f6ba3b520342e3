import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DataSource } from 'typeorm';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { swapLetterCase } from '../support/letter-case.js';

const NAME_RULE = 'redemption code name must be 1-20 characters';

describe.each(testDatabases())('redemption codes and top-up by code on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let db: DataSource;
  const ids: Record<string, number> = {};
  const clients: Record<string, ApiClient> = {};

  async function createUser(username: string): Promise<number> {
    expect((await root.post('/api/user/', { username, password: 'password-123' })).body.success).toBe(true);
    const found = await root.get(`/api/user/search?keyword=${username}`);
    ids[username] = found.body.data.items.find((u: { username: string }) => u.username === username).id;
    return ids[username]!;
  }

  async function loginAs(username: string, instance: TestGateway = gw): Promise<ApiClient> {
    const client = instance.client();
    expect((await client.login(username, 'password-123')).body.success).toBe(true);
    return client;
  }

  async function createCodes(body: Record<string, unknown>): Promise<string[]> {
    const res = await root.post('/api/redemption/', body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: '' });
    return res.body.data;
  }

  async function codeByKey(key: string): Promise<any> {
    const page = await root.get('/api/redemption/?p=1&page_size=100');
    return page.body.data.items.find((c: { key: string }) => c.key === key);
  }

  async function quotaOf(userId: number): Promise<number> {
    const rows = await db.query(`SELECT quota FROM users WHERE id = ${userId}`);
    return Number(rows[0].quota);
  }

  async function topUpLogs(userIds: number[]): Promise<{ user_id: number; quota: number; content: string }[]> {
    const rows = await db.query(`SELECT user_id, quota, content FROM logs WHERE type = 1 AND user_id IN (${userIds.join(',')})`);
    return rows.map((r: any) => ({ user_id: Number(r.user_id), quota: Number(r.quota), content: r.content }));
  }

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    db = gw.gateway.app.get(DataSource);
    for (let i = 0; i < 5; i++) await createUser(`racer${i}`);
    await createUser('alice');
    clients.alice = await loginAs('alice');
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('creates codes: 32-char keys from the CSPRNG, default name from the quota, count and quota rules', async () => {
    const keys = await createCodes({ name: 'batch', quota: 250000, count: 3 });
    expect(keys).toHaveLength(3);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(new Set(keys).size).toBe(3);
    const created = await codeByKey(keys[0]!);
    expect(created).toMatchObject({
      name: 'batch',
      quota: 250000,
      status: 1,
      used_user_id: 0,
      redeemed_time: 0,
      expired_time: 0,
      user_id: root.userId,
    });
    expect(created.created_time).toBeGreaterThan(Date.now() / 1000 - 60);

    const [unnamed] = await createCodes({ name: '', quota: 100000 });
    expect((await codeByKey(unnamed!)).name).toBe('$0.20');
    const [withoutName] = await createCodes({ quota: 500000 });
    expect((await codeByKey(withoutName!)).name).toBe('$1.00');
    const [free] = await createCodes({ name: 'zero', quota: 0 });
    expect((await codeByKey(free!)).quota).toBe(0);

    const post = (body: object) => root.post('/api/redemption/', body);
    expect((await post({ name: 'x'.repeat(21), quota: 1 })).body).toEqual({ success: false, message: NAME_RULE });
    expect((await post({ name: 'ok', quota: 1, count: 0 })).body).toEqual({ success: false, message: 'count must be greater than 0' });
    expect((await post({ name: 'ok', quota: 1, count: 101 })).body).toEqual({
      success: false,
      message: 'at most 100 redemption codes can be created at once',
    });
    expect((await post({ name: 'ok', quota: 1, count: 1.5 })).body).toEqual({ success: false, message: 'count must be an integer' });
    expect((await post({ name: 'ok', quota: -1 })).body).toEqual({ success: false, message: 'quota must not be negative' });
    expect((await post({ name: 'ok', quota: 1.5 })).body).toEqual({ success: false, message: 'quota must be an integer' });
    expect((await post({ name: 'ok' })).body).toEqual({ success: false, message: 'quota must be an integer' });
    expect((await post({ name: 'ok', quota: 1, expired_time: 1000 })).body).toEqual({
      success: false,
      message: 'expiry time cannot be earlier than now',
    });
    const malformed = await root.raw('POST', '/api/redemption/', '{"name":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.success).toBe(false);

    const max = await post({ name: 'hundred', quota: 1, count: 100 });
    expect(max.body.data).toHaveLength(100);
  });

  it('lists newest first with paging, searches by id or name prefix, and shows one code', async () => {
    await createCodes({ name: 'findme-a', quota: 1 });
    const [b] = await createCodes({ name: 'findme-b', quota: 2 });
    const page = await root.get('/api/redemption/?p=1&page_size=2');
    expect(page.body.data).toMatchObject({ page: 1, page_size: 2 });
    expect(page.body.data.items).toHaveLength(2);
    expect(page.body.data.total).toBeGreaterThanOrEqual(108);
    expect(page.body.data.items[0].id).toBeGreaterThan(page.body.data.items[1].id);
    const page2 = await root.get('/api/redemption/?p=2&page_size=2');
    expect(page2.body.data.items[0].id).toBeLessThan(page.body.data.items[1].id);

    const byName = await root.get('/api/redemption/search?keyword=findme&p=1&page_size=10');
    expect(byName.body.data.items.map((c: { name: string }) => c.name)).toEqual(['findme-b', 'findme-a']);
    expect(byName.body.data.total).toBe(2);
    const code = await codeByKey(b!);
    const byId = await root.get(`/api/redemption/search?keyword=${code.id}`);
    expect(byId.body.data.items.map((c: { id: number }) => c.id)).toContain(code.id);
    const wildcard = await root.get('/api/redemption/search?keyword=%25');
    expect(wildcard.body.data.total).toBe(0);

    expect((await root.get(`/api/redemption/${code.id}`)).body).toEqual({ success: true, message: '', data: code });
    expect((await root.get('/api/redemption/999999')).body).toEqual({ success: false, message: 'redemption code not found' });
    expect((await root.get('/api/redemption/abc')).body).toEqual({ success: false, message: 'invalid redemption code id' });
  });

  it('counts the name in characters, not UTF-16 units: 15 or 20 emoji fit, 21 do not', async () => {
    const emoji = (count: number) => '🎁'.repeat(count);
    const [key] = await createCodes({ name: emoji(15), quota: 10 });
    const code = await codeByKey(key!);
    expect(code.name).toBe(emoji(15));
    const edited = await root.put('/api/redemption/', { id: code.id, name: emoji(20), quota: 10 });
    expect(edited.body).toMatchObject({ success: true, data: { id: code.id, name: emoji(20) } });
    expect((await root.post('/api/redemption/', { name: emoji(21), quota: 1 })).body).toEqual({ success: false, message: NAME_RULE });
    expect((await root.put('/api/redemption/', { id: code.id, name: emoji(21), quota: 10 })).body).toEqual({
      success: false,
      message: NAME_RULE,
    });
  });

  it('edits name and quota only while unused; enables/disables; never re-enables a used code', async () => {
    const [key] = await createCodes({ name: 'edit-me', quota: 10 });
    const code = await codeByKey(key!);
    const expiry = Math.floor(Date.now() / 1000) + 86400;
    expect(
      (await root.put('/api/redemption/', { id: code.id, name: 'edit-me', quota: 10, expired_time: expiry })).body.data.expired_time,
    ).toBe(expiry);
    expect((await root.put('/api/redemption/', { id: code.id, name: 'x', quota: 10, expired_time: 5 })).body).toEqual({
      success: false,
      message: 'expiry time cannot be earlier than now',
    });
    const edited = await root.put('/api/redemption/', { id: code.id, name: 'edited', quota: 20 });
    expect(edited.body).toMatchObject({ success: true, data: { id: code.id, name: 'edited', quota: 20, status: 1, expired_time: expiry } });
    expect((await root.put('/api/redemption/', { id: code.id, name: '', quota: 20 })).body).toEqual({ success: false, message: NAME_RULE });
    expect((await root.put('/api/redemption/', { id: code.id, name: 'x', quota: -5 })).body).toEqual({
      success: false,
      message: 'quota must not be negative',
    });
    expect((await root.put('/api/redemption/', { id: 999999, name: 'x', quota: 1 })).body).toEqual({
      success: false,
      message: 'redemption code not found',
    });

    const disable = await root.put('/api/redemption/?status_only=true', { id: code.id, status: 2 });
    expect(disable.body).toMatchObject({ success: true, data: { status: 2 } });
    expect((await root.put('/api/redemption/', { id: code.id, name: 'again', quota: 1 })).body).toEqual({
      success: false,
      message: 'only unused redemption codes can be edited; enable it first',
    });
    expect((await root.put('/api/redemption/?status_only=true', { id: code.id, status: 3 })).body).toEqual({
      success: false,
      message: 'status must be 1 (enabled) or 2 (disabled)',
    });
    expect((await root.put('/api/redemption/?status_only=true', { id: code.id, status: 1 })).body.data.status).toBe(1);

    expect((await clients.alice!.post('/api/user/topup', { key })).body).toEqual({ success: true, message: '', data: 20 });
    expect((await root.put('/api/redemption/?status_only=true', { id: code.id, status: 1 })).body).toEqual({
      success: false,
      message: 'this redemption code has already been used and cannot be enabled or disabled',
    });
    expect((await root.put('/api/redemption/?status_only=true', { id: code.id, status: 2 })).body.success).toBe(false);
    expect((await root.put('/api/redemption/', { id: code.id, name: 'late', quota: 999 })).body).toEqual({
      success: false,
      message: 'this redemption code has already been used and can no longer be edited',
    });
    const used = (await root.get(`/api/redemption/${code.id}`)).body.data;
    expect(used).toMatchObject({ status: 3, used_user_id: ids.alice, quota: 20, name: 'edited' });
    expect(used.redeemed_time).toBeGreaterThan(0);
  });

  it('soft-deletes: the code disappears from lists and can no longer be redeemed', async () => {
    const [key] = await createCodes({ name: 'doomed', quota: 5 });
    const code = await codeByKey(key!);
    expect((await root.delete(`/api/redemption/${code.id}/`)).body).toMatchObject({ success: true, message: '' });
    expect((await root.get(`/api/redemption/${code.id}`)).body).toEqual({ success: false, message: 'redemption code not found' });
    expect((await root.delete(`/api/redemption/${code.id}`)).body).toEqual({ success: false, message: 'redemption code not found' });
    const rows = await db.query(`SELECT deleted_at FROM redemptions WHERE id = ${code.id}`);
    expect(rows[0].deleted_at).not.toBeNull();
    expect((await clients.alice!.post('/api/user/topup', { key })).body).toEqual({ success: false, message: 'invalid redemption code' });
  });

  it("redeems a code only in its exact letter case (MySQL's default collation would match another)", async () => {
    const [key] = await createCodes({ name: 'cased', quota: 5 });
    const swapped = swapLetterCase(key!);
    expect(swapped).not.toBe(key);
    expect((await clients.alice!.post('/api/user/topup', { key: swapped })).body).toEqual({
      success: false,
      message: 'invalid redemption code',
    });
    expect((await clients.alice!.post('/api/user/topup', { key })).body).toMatchObject({ success: true, data: 5 });
  });

  it('deletes invalid codes (used, disabled, expired) and keeps usable ones', async () => {
    const [used, disabled, expired, usable] = await Promise.all(
      ['used', 'disabled', 'expired', 'usable'].map(async (name) => (await createCodes({ name: `inv-${name}`, quota: 1 }))[0]!),
    );
    await clients.alice!.post('/api/user/topup', { key: used });
    await root.put('/api/redemption/?status_only=true', { id: (await codeByKey(disabled)).id, status: 2 });
    await db.query(`UPDATE redemptions SET expired_time = 1000 WHERE name = 'inv-expired'`);
    const res = await root.delete('/api/redemption/invalid');
    expect(res.body.success).toBe(true);
    expect(res.body.data).toBeGreaterThanOrEqual(3);
    const left = (await root.get('/api/redemption/search?keyword=inv-')).body.data.items.map((c: { key: string }) => c.key);
    expect(left).toEqual([usable]);
    expect(left).not.toContain(expired);
    expect((await root.delete('/api/redemption/invalid')).body.data).toBe(0);
  });

  it('refuses the admin routes to a plain user and to anonymous callers', async () => {
    const alice = clients.alice!;
    for (const [method, path] of [
      ['GET', '/api/redemption/'],
      ['GET', '/api/redemption/search?keyword=a'],
      ['GET', '/api/redemption/1'],
      ['POST', '/api/redemption/'],
      ['PUT', '/api/redemption/'],
      ['PUT', '/api/redemption/?status_only=true'],
      ['DELETE', '/api/redemption/1/'],
      ['DELETE', '/api/redemption/invalid'],
    ] as const) {
      const res = await alice.request<any>(
        method,
        path,
        method === 'GET' || method === 'DELETE' ? undefined : { id: 1, name: 'x', quota: 1, status: 1 },
      );
      expect(res.body.success, `${method} ${path}`).toBe(false);
      expect(res.text).not.toMatch(/"key"/);
      const anon = await gw.client().request<any>(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(anon.status, `${method} ${path} anonymous`).toBe(401);
    }
    expect((await gw.client().post('/api/user/topup', { key: 'x' })).status).toBe(401);
  });

  it('redeems with clear messages for empty, wrong, disabled, used and expired codes', async () => {
    const alice = clients.alice!;
    const before = await quotaOf(ids.alice!);
    expect((await alice.post('/api/user/topup', { key: '' })).body).toEqual({ success: false, message: 'please enter a redemption code' });
    expect((await alice.post('/api/user/topup', {})).body).toEqual({ success: false, message: 'please enter a redemption code' });
    expect((await alice.post('/api/user/topup', { key: 'nope' })).body).toEqual({ success: false, message: 'invalid redemption code' });

    const [disabledKey] = await createCodes({ name: 'off', quota: 7 });
    await root.put('/api/redemption/?status_only=true', { id: (await codeByKey(disabledKey!)).id, status: 2 });
    expect((await alice.post('/api/user/topup', { key: disabledKey })).body).toEqual({
      success: false,
      message: 'this redemption code has been disabled',
    });

    const [expiringKey] = await createCodes({ name: 'soon', quota: 7, expired_time: Math.floor(Date.now() / 1000) + 3600 });
    await db.query(
      `UPDATE redemptions SET expired_time = ${Math.floor(Date.now() / 1000) - 10} WHERE ${kind === 'mysql' ? '`key`' : '"key"'} = '${expiringKey}'`,
    );
    expect((await alice.post('/api/user/topup', { key: expiringKey })).body).toEqual({
      success: false,
      message: 'this redemption code has expired',
    });

    const [key] = await createCodes({ name: 'once', quota: 12345 });
    expect((await alice.post('/api/user/topup', { key: `  ${key}  ` })).body).toEqual({ success: true, message: '', data: 12345 });
    expect((await alice.post('/api/user/topup', { key })).body).toEqual({
      success: false,
      message: 'this redemption code has already been used',
    });
    expect(await quotaOf(ids.alice!)).toBe(before + 12345);
    const self = await alice.get('/api/user/self');
    expect(self.body.data.quota).toBe(before + 12345);
    const logs = (await topUpLogs([ids.alice!])).filter((l) => l.quota === 12345);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.content).toMatch(/^redeemed code, quota \+\$0\.02/);
  });

  it('credits exactly once when 100 requests from 5 users, 10 sessions and 2 instances redeem one code at once', async () => {
    const other = await startTestGateway(kind, {}, gw.db);
    onTestFinished(() => other.close());
    const racers = Object.keys(ids).filter((name) => name.startsWith('racer'));
    const sessions = await Promise.all([...racers.map((name) => loginAs(name)), ...racers.map((name) => loginAs(name, other))]);
    const racerIds = racers.map((name) => ids[name]!);
    const before = await Promise.all(racerIds.map(quotaOf));
    const [key] = await createCodes({ name: 'race', quota: 777777 });

    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => sessions[i % sessions.length]!.post('/api/user/topup', { key })),
    );

    for (const res of results) expect(res.status).toBe(200);
    const winners = results.filter((res) => res.body.success);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.body.data).toBe(777777);
    for (const res of results.filter((r) => !r.body.success)) {
      expect(res.body.message).toBe('this redemption code has already been used');
    }
    const after = await Promise.all(racerIds.map(quotaOf));
    const gained = after.map((q, i) => q - before[i]!);
    expect(gained.reduce((a, b) => a + b, 0)).toBe(777777);
    const winnerId = racerIds[gained.indexOf(777777)];
    expect(await codeByKey(key!)).toMatchObject({ status: 3, used_user_id: winnerId });
    const logs = (await topUpLogs(racerIds)).filter((l) => l.quota === 777777);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.user_id).toBe(winnerId);
  });
});
