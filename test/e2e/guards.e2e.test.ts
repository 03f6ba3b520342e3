import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { UserService } from '@gw/user';
import { testDatabases } from '../support/databases.js';
import { ROOT, setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { INVALID_ACCESS_TOKEN } from '../support/api-client.js';

describe.each(testDatabases())('sessions, access tokens and guards on %s', (kind) => {
  let gw: TestGateway;
  let db: DataSource;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    await setupRoot(gw);
    db = gw.gateway.app.get(DataSource);
    await gw.gateway.app.get(UserService).create({ username: 'alice', password: 'alice-pass-1' });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('accepts both trailing-slash forms of a route', async () => {
    const alice = gw.client();
    await alice.login('alice', 'alice-pass-1');
    expect((await alice.get('/api/user/self')).body.success).toBe(true);
    expect((await alice.get('/api/user/self/')).body.success).toBe(true);
    expect((await gw.client().get('/api/status/')).body.success).toBe(true);
  });

  it('refuses root-only routes to a regular user with success:false', async () => {
    const alice = gw.client();
    await alice.login('alice', 'alice-pass-1');
    const res = await alice.get('/api/option/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: false, message: 'permission denied: insufficient role' });
    expect((await alice.put('/api/option/', { key: 'SystemName', value: 'pwned' })).body.success).toBe(false);
    expect((await gw.client().get('/api/status')).body.data.system_name).not.toBe('pwned');
  });

  it('authenticates with the access token in Authorization, New-Api-User still required', async () => {
    await db.query(`UPDATE users SET access_token = 'alice-access-token-123' WHERE username = 'alice'`);
    const id = (await db.query(`SELECT id FROM users WHERE username = 'alice'`))[0].id as number;
    const client = gw.client();
    expect((await client.get('/api/user/self', { Authorization: 'alice-access-token-123' })).status).toBe(401);
    const ok = await client.get('/api/user/self', { Authorization: 'Bearer alice-access-token-123', 'New-Api-User': String(id) });
    expect(ok.body).toMatchObject({ success: true, data: { username: 'alice' } });
    // A wrong token is not a missing login: 200 success:false, as new-api answers.
    const wrong = await client.get('/api/user/self', { Authorization: 'wrong-token', 'New-Api-User': String(id) });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toEqual(INVALID_ACCESS_TOKEN);
    expect((await client.get('/api/user/self', { 'New-Api-User': String(id) })).status).toBe(401);
  });

  it('refuses a disabled user at once, even with a live session', async () => {
    await gw.gateway.app.get(UserService).create({ username: 'bob', password: 'bob-pass-123' });
    const bob = gw.client();
    await bob.login('bob', 'bob-pass-123');
    expect((await bob.get('/api/user/self')).body.success).toBe(true);
    await db.query(`UPDATE users SET status = 2 WHERE username = 'bob'`);
    const refused = await bob.get('/api/user/self');
    expect(refused.body).toEqual({ success: false, message: 'this user has been disabled' });
    await db.query(`UPDATE users SET status = 1 WHERE username = 'bob'`);
    // The refusal ended the session: re-enabling does not revive it.
    expect((await bob.get('/api/user/self')).status).toBe(401);
    expect((await gw.client().login('bob', 'bob-pass-123')).body.success).toBe(true);
  });

  it('refuses login of a disabled user', async () => {
    await db.query(`UPDATE users SET status = 2 WHERE username = 'bob'`);
    expect((await gw.client().login('bob', 'bob-pass-123')).body.success).toBe(false);
    await db.query(`UPDATE users SET status = 1 WHERE username = 'bob'`);
  });

  it('ignores a forged or tampered session cookie', async () => {
    const client = gw.client();
    await client.login(ROOT.username, ROOT.password);
    const [name, value] = client.cookie!.split('=');
    const tampered = gw.client();
    tampered.userId = client.userId;
    tampered.cookie = `${name}=${value!.slice(0, -2)}xx`;
    expect((await tampered.get('/api/user/self')).status).toBe(401);
    tampered.cookie = 'session=garbage';
    expect((await tampered.get('/api/user/self')).status).toBe(401);
  });
});

describe('rate limits', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway('sqlite', { CRITICAL_RATE_LIMIT: '3', GLOBAL_API_RATE_LIMIT: '12' });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('limits login attempts with the critical limit, then the global API limit', async () => {
    const client = gw.client();
    for (let i = 0; i < 3; i++) expect((await client.login('x', 'y')).status).toBe(200);
    const limited = await client.login('x', 'y');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, message: 'too many requests, try later' });

    let last = 200;
    for (let i = 0; i < 12 && last !== 429; i++) last = (await client.get('/api/status')).status;
    expect(last).toBe(429);
  });
});
