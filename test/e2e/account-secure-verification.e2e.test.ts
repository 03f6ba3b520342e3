import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { ROOT, setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const CHANNEL_KEY = 'sk-upstream-secret-0001';
const REQUIRED = {
  success: false,
  message: 'this action needs a recent security verification (POST /api/verify)',
  code: 'VERIFICATION_REQUIRED',
};

/**
 * new-api's SecureVerificationRequired: the channel key (`POST /api/channel/:id/key`, root) needs a
 * `POST /api/verify` on the same login session within 5 minutes.
 */
describe.each(testDatabases())('sensitive actions re-verified through /api/verify on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let channelId: number;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    const created = await root.post('/api/channel/', {
      name: 'secret-holder',
      key: CHANNEL_KEY,
      models: 'm',
      base_url: 'https://api.openai.com',
    });
    expect(created.body.success, created.text).toBe(true);
    channelId = (await root.get('/api/channel/')).body.data.items[0].id;
  });
  afterAll(async () => gw?.close());

  it('refuses the channel key with 403 VERIFICATION_REQUIRED until the session re-verifies, then shows it', async () => {
    const before = await root.post(`/api/channel/${channelId}/key`);
    expect(before.status).toBe(403);
    expect(before.body).toEqual(REQUIRED);
    expect(before.text).not.toContain(CHANNEL_KEY);

    expect((await root.post('/api/verify', { method: 'password', password: 'wrong-password' })).body.success).toBe(false);
    expect((await root.post(`/api/channel/${channelId}/key`)).status).toBe(403);

    const verified = await root.post('/api/verify', { method: 'password', password: ROOT.password });
    expect(verified.body, verified.text).toMatchObject({ success: true, data: { verified: true } });
    const now = Math.floor(Date.now() / 1000);
    // new-api's window: 5 minutes.
    expect(verified.body.data.expires_at).toBeGreaterThanOrEqual(now + 295);
    expect(verified.body.data.expires_at).toBeLessThanOrEqual(now + 301);

    const shown = await root.post(`/api/channel/${channelId}/key`);
    expect(shown.body, shown.text).toEqual({ success: true, message: '', data: { key: CHANNEL_KEY } });
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect((await root.post('/api/channel/999999/key')).body.success).toBe(false);
  });

  it('ties the proof to one login session: another session or the access token must verify on its own', async () => {
    const other = gw.client();
    await other.login(ROOT.username, ROOT.password);
    expect((await other.post(`/api/channel/${channelId}/key`)).body).toEqual(REQUIRED);

    // An access token has no session to hold a proof (new-api keeps it in the cookie session too).
    const byToken = gw.client();
    byToken.headers = { Authorization: (await root.get('/api/user/token')).body.data, 'New-Api-User': String(root.userId) };
    expect((await byToken.post('/api/verify', { method: 'password', password: ROOT.password })).body.success).toBe(false);
    expect((await byToken.post(`/api/channel/${channelId}/key`)).status).toBe(403);

    // Logging out ends the session and its proof.
    await root.get('/api/user/logout');
    await root.login(ROOT.username, ROOT.password);
    expect((await root.post(`/api/channel/${channelId}/key`)).body).toEqual(REQUIRED);
  });

  it('keeps the key from admins and users whatever they verify, without telling them about verification', async () => {
    for (const [username, role] of [
      ['sv_admin', 10],
      ['sv_user', 1],
    ] as const) {
      expect((await root.post('/api/user', { username, password: 'secret-pass-1' })).body.success).toBe(true);
      const client = gw.client();
      const login = await client.login(username, 'secret-pass-1');
      if (role === 10) expect((await root.post('/api/user/manage', { id: login.body.data.id, action: 'promote' })).body.success).toBe(true);
      expect((await client.post('/api/verify', { method: 'password', password: 'secret-pass-1' })).body.success).toBe(true);
      const res = await client.post(`/api/channel/${channelId}/key`);
      expect(res.body.success, username).toBe(false);
      expect(res.body.code, username).toBeUndefined();
      expect(res.text).not.toContain(CHANNEL_KEY);
    }
    expect((await gw.client().post(`/api/channel/${channelId}/key`)).status).toBe(401);
  });

  it('with 2FA on, takes a TOTP code and no longer the password', async () => {
    const setup = await root.post('/api/user/2fa/setup');
    const secret = setup.body.data.secret as string;
    // The server accepts one 30-second step either side and never the same step twice.
    const code = (offsetSteps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });
    expect((await root.post('/api/user/2fa/enable', { code: await code() })).body.success).toBe(true);
    expect((await root.post('/api/verify', { method: 'password', password: ROOT.password })).body).toMatchObject({
      success: false,
      message: 'two-factor authentication is on: verify with a code instead',
    });
    expect((await root.post(`/api/channel/${channelId}/key`)).status).toBe(403);
    const verified = await root.post('/api/verify', { method: '2fa', code: await code(1) });
    expect(verified.body, verified.text).toMatchObject({ success: true });
    expect((await root.post(`/api/channel/${channelId}/key`)).body.data.key).toBe(CHANNEL_KEY);
  });
});
