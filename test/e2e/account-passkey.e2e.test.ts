import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const PASSWORD = 'secret-pass-1';

describe.each(testDatabases())('passkeys on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let origin: string;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    // The console as users reach it: localhost is a secure context, an IP address is not a valid RP id.
    origin = gw.url.replace('127.0.0.1', 'localhost');
    for (const [key, value] of [
      ['ServerAddress', origin],
      ['passkey.enabled', 'true'],
    ]) {
      expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    }
  });
  afterAll(async () => gw?.close());

  async function newUser(username: string): Promise<ApiClient> {
    expect((await root.post('/api/user', { username, password: PASSWORD })).body.success).toBe(true);
    const client = gw.client();
    expect((await client.login(username, PASSWORD)).body.success).toBe(true);
    return client;
  }

  async function register(client: ApiClient, device: SoftAuthenticator) {
    const begin = await client.post('/api/user/passkey/register/begin');
    expect(begin.body.success, begin.text).toBe(true);
    const publicKey = begin.body.data.options.publicKey;
    expect(publicKey.rp.id).toBe('localhost');
    expect(publicKey.authenticatorSelection.residentKey).toBe('required');
    return client.post('/api/user/passkey/register/finish', device.create(publicKey));
  }

  async function passkeyLogin(device: SoftAuthenticator, opts: { counter?: number } = {}) {
    const browser = gw.client();
    const begin = await browser.post('/api/user/passkey/login/begin');
    expect(begin.body.success, begin.text).toBe(true);
    const finish = await browser.post('/api/user/passkey/login/finish', device.get(begin.body.data.options.publicKey, opts));
    if (finish.body.success) browser.userId = finish.body.data.id;
    return { browser, finish };
  }

  it('registers a passkey and logs in with it, with no password', async () => {
    const user = await newUser('pk_alice');
    const device = new SoftAuthenticator(origin);
    const registered = await register(user, device);
    expect(registered.body, registered.text).toMatchObject({ success: true });

    const status = await user.get('/api/user/passkey');
    expect(status.body.data).toMatchObject({ enabled: true, last_used_at: null });
    expect(status.body.data.passkeys).toHaveLength(1);
    expect(status.body.data.passkeys[0].credential_id).toBe(Buffer.from(device.credentialIds[0]!, 'base64url').toString('base64'));

    const { browser, finish } = await passkeyLogin(device);
    expect(finish.body, finish.text).toMatchObject({ success: true, data: { username: 'pk_alice' } });
    expect((await browser.get('/api/user/self')).body.data.username).toBe('pk_alice');
    expect((await user.get('/api/user/passkey')).body.data.last_used_at).not.toBeNull();
  });

  it('refuses a replayed or forged assertion, a spent challenge and a foreign origin', async () => {
    const user = await newUser('pk_bob');
    const device = new SoftAuthenticator(origin);
    expect((await register(user, device)).body.success).toBe(true);

    const browser = gw.client();
    const begin = await browser.post('/api/user/passkey/login/begin');
    const assertion = device.get(begin.body.data.options.publicKey);
    expect((await browser.post('/api/user/passkey/login/finish', assertion)).body.success).toBe(true);
    // Same signed answer again: its challenge is spent.
    const replay = await gw.client().post('/api/user/passkey/login/finish', assertion);
    expect(replay.body).toMatchObject({ success: false, message: 'the passkey request has expired, start again' });

    // A counter that goes backwards means a cloned authenticator.
    const cloned = await passkeyLogin(device, { counter: 1 });
    expect(cloned.finish.body.success).toBe(false);

    // A phishing site's origin.
    const phished = new SoftAuthenticator('https://evil.example');
    (phished as any).credentials = (device as any).credentials;
    const evil = await passkeyLogin(phished, { counter: 100 });
    expect(evil.finish.body.success).toBe(false);

    const stranger = new SoftAuthenticator(origin);
    await register(await newUser('pk_other'), stranger);
    const tampered = gw.client();
    const b2 = await tampered.post('/api/user/passkey/login/begin');
    const answer = stranger.get(b2.body.data.options.publicKey);
    answer.response.signature = Buffer.alloc(70, 1).toString('base64url');
    expect((await tampered.post('/api/user/passkey/login/finish', answer)).body.success).toBe(false);

    const garbage = await gw.client().post('/api/user/passkey/login/finish', { id: 'x' });
    expect(garbage.status).toBeLessThan(500);
    expect(garbage.body.success).toBe(false);
  });

  it('re-verifies with a passkey, and lets the user and an admin remove passkeys', async () => {
    const user = await newUser('pk_carol');
    const device = new SoftAuthenticator(origin);
    expect((await register(user, device)).body.success).toBe(true);

    expect((await user.post('/api/verify', { method: 'passkey' })).body.success).toBe(false);
    const begin = await user.post('/api/user/passkey/verify/begin');
    expect(begin.body.data.options.publicKey.allowCredentials).toHaveLength(1);
    const finish = await user.post('/api/user/passkey/verify/finish', device.get(begin.body.data.options.publicKey));
    expect(finish.body, finish.text).toMatchObject({ success: true });
    const verified = await user.post('/api/verify', { method: 'passkey' });
    expect(verified.body).toMatchObject({ success: true, data: { verified: true } });
    expect((await user.post('/api/verify', { method: 'passkey' })).body.success).toBe(false);
    expect((await user.post('/api/verify', { method: 'password', password: 'wrong' })).body.success).toBe(false);
    expect((await user.post('/api/verify', { method: 'password', password: PASSWORD })).body.success).toBe(true);
    expect((await user.post('/api/verify', { method: 'magic' })).body.success).toBe(false);

    expect((await user.delete('/api/user/passkey')).body.success).toBe(true);
    expect((await user.get('/api/user/passkey')).body.data.enabled).toBe(false);
    expect((await passkeyLogin(device)).finish.body.success).toBe(false);

    expect((await register(user, device)).body.success).toBe(true);
    const reset = await root.delete(`/api/user/${user.userId}/reset_passkey`);
    expect(reset.body, reset.text).toMatchObject({ success: true });
    expect((await root.delete(`/api/user/${user.userId}/reset_passkey`)).body.success).toBe(false);
    expect((await user.delete(`/api/user/${root.userId}/reset_passkey`)).body.success).toBe(false);
  });

  it('is refused while the administrator has passkeys off', async () => {
    const user = await newUser('pk_dave');
    await root.put('/api/option/', { key: 'passkey.enabled', value: 'false' });
    try {
      expect((await user.post('/api/user/passkey/register/begin')).body).toMatchObject({
        success: false,
        message: 'the administrator has not enabled passkey login',
      });
      expect((await gw.client().post('/api/user/passkey/login/begin')).body.success).toBe(false);
      expect((await gw.client().get('/api/status')).body.data.passkey_login).toBe(false);
    } finally {
      await root.put('/api/option/', { key: 'passkey.enabled', value: 'true' });
    }
  });
});
