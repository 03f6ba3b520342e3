import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { ROOT, setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { swapLetterCase } from '../support/letter-case.js';
import { INVALID_ACCESS_TOKEN } from '../support/api-client.js';

describe.each(testDatabases())('accounts: self service on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let alice: ApiClient;
  let aliceId: number;

  async function newUser(username: string, password = 'password-123'): Promise<ApiClient> {
    expect((await root.post('/api/user/', { username, password })).body.success).toBe(true);
    const client = gw.client();
    expect((await client.login(username, password)).body.success).toBe(true);
    return client;
  }

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    alice = await newUser('alice');
    aliceId = alice.userId!;
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('returns every spec field of the caller and no secret', async () => {
    const self = await alice.get('/api/user/self');
    expect(self.body.success).toBe(true);
    for (const key of [
      'id',
      'username',
      'display_name',
      'role',
      'status',
      'email',
      'github_id',
      'oidc_id',
      'wechat_id',
      'telegram_id',
      'linux_do_id',
      'group',
      'quota',
      'used_quota',
      'request_count',
      'aff_code',
      'aff_count',
      'aff_quota',
      'aff_history_quota',
      'inviter_id',
      'setting',
      'permissions',
    ]) {
      expect(self.body.data, key).toHaveProperty(key);
    }
    expect(self.body.data.permissions).toEqual({ sidebar_settings: true, sidebar_modules: { admin: false } });
    expect(self.text).not.toMatch(/password|access_token|\$2[aby]\$/);
  });

  it('updates the display name and ignores role, quota, group, status and id', async () => {
    const res = await alice.put('/api/user/self', {
      display_name: 'Alice A',
      role: 100,
      quota: 999999999,
      group: 'vip',
      status: 2,
      id: 1,
      access_token: 'x'.repeat(32),
      username: 'root2',
    });
    expect(res.body).toEqual({ success: true, message: '' });
    const view = (await root.get(`/api/user/${aliceId}`)).body.data;
    expect(view).toMatchObject({ id: aliceId, username: 'alice', display_name: 'Alice A', role: 1, quota: 0, group: 'default', status: 1 });
    const rootView = (await root.get('/api/user/self')).body.data;
    expect(rootView).toMatchObject({ username: 'root', role: 100, display_name: 'Root User' });
    const forged = gw.client();
    forged.headers = { Authorization: 'x'.repeat(32), 'New-Api-User': String(aliceId) };
    expect((await forged.get('/api/user/self')).body).toEqual(INVALID_ACCESS_TOKEN);
    expect((await alice.put('/api/user/self', { display_name: 'x'.repeat(21) })).body).toEqual({
      success: false,
      message: 'display name must be at most 20 characters',
    });
  });

  it('changes the password only with the original one, ending other sessions', async () => {
    const other = gw.client();
    await other.login('alice', 'password-123');
    const token = (await other.get('/api/user/token')).body.data as string;
    const byToken = gw.client();
    byToken.headers = { Authorization: token, 'New-Api-User': String(aliceId) };
    expect((await byToken.get('/api/user/self')).status).toBe(200);
    expect((await alice.put('/api/user/self', { password: 'new-password-1' })).body).toEqual({
      success: false,
      message: 'the original password is wrong',
    });
    expect((await alice.put('/api/user/self', { password: 'new-password-1', original_password: 'wrong-one-1' })).body).toEqual({
      success: false,
      message: 'the original password is wrong',
    });
    expect((await alice.put('/api/user/self', { password: 'short', original_password: 'password-123' })).body).toEqual({
      success: false,
      message: 'password length must not be less than 8',
    });
    expect((await alice.put('/api/user/self', { password: 'new-password-1', original_password: 'password-123' })).body.success).toBe(true);
    expect((await other.get('/api/user/self')).status).toBe(401);
    expect((await byToken.get('/api/user/self')).body).toEqual(INVALID_ACCESS_TOKEN);
    expect((await alice.get('/api/user/self')).status).toBe(200);
    expect((await gw.client().login('alice', 'password-123')).body.success).toBe(false);
    expect((await gw.client().login('alice', 'new-password-1')).body.success).toBe(true);
  });

  it('generates a 32-char access token that works as Authorization and replaces the old one', async () => {
    const first = (await alice.get('/api/user/token')).body.data as string;
    expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const byToken = gw.client();
    byToken.headers = { Authorization: `Bearer ${first}`, 'New-Api-User': String(aliceId) };
    expect((await byToken.get('/api/user/self')).body.data.username).toBe('alice');
    // Only the exact token: MySQL's default collation would match it in another letter case.
    const swapped = swapLetterCase(first);
    const byCase = gw.client();
    byCase.headers = { Authorization: `Bearer ${swapped}`, 'New-Api-User': String(aliceId) };
    expect((await byCase.get('/api/user/self')).body).toEqual(INVALID_ACCESS_TOKEN);
    const second = (await alice.get('/api/user/token')).body.data as string;
    expect(second).not.toBe(first);
    expect((await byToken.get('/api/user/self')).body).toEqual(INVALID_ACCESS_TOKEN);
    expect(JSON.stringify((await root.get(`/api/user/${aliceId}`)).body)).not.toContain(second);
  });

  it('creates the invite code once', async () => {
    const code = (await alice.get('/api/user/aff')).body.data as string;
    expect(code).toMatch(/^[A-Za-z0-9]{4,}$/);
    expect((await alice.get('/api/user/aff')).body.data).toBe(code);
    expect((await alice.get('/api/user/self')).body.data.aff_code).toBe(code);
  });

  it('transfers invite earnings atomically with a minimum of one unit', async () => {
    // Earn invite quota: two users register with alice's code.
    await root.put('/api/option/', { key: 'QuotaForInviter', value: '600000' });
    const code = (await alice.get('/api/user/aff')).body.data as string;
    for (const name of ['inv1', 'inv2']) {
      expect(
        (await gw.client().post('/api/user/register', { username: name, password: 'password-123', aff_code: code })).body.success,
      ).toBe(true);
    }
    const before = (await alice.get('/api/user/self')).body.data;
    expect(before).toMatchObject({ aff_quota: 1200000, aff_history_quota: 1200000, aff_count: 2, quota: 0 });
    expect((await alice.post('/api/user/aff_transfer', { quota: 499999 })).body).toEqual({
      success: false,
      message: 'transfer amount minimum is $1.000000',
    });
    expect((await alice.post('/api/user/aff_transfer', { quota: 'lots' })).body.success).toBe(false);
    expect((await alice.post('/api/user/aff_transfer', { quota: 5000000 })).body.success).toBe(false);
    // Concurrent transfers: only as many as the balance allows succeed.
    const results = await Promise.all([1, 2, 3].map(() => alice.post('/api/user/aff_transfer', { quota: 500000 })));
    expect(results.filter((r) => r.body.success)).toHaveLength(2);
    const after = (await alice.get('/api/user/self')).body.data;
    expect(after).toMatchObject({ aff_quota: 200000, quota: 1000000, aff_history_quota: 1200000 });
  });

  it('lists usable groups for the caller and publicly', async () => {
    expect((await gw.client().get('/api/user/groups')).body).toEqual({
      success: true,
      message: '',
      data: { default: { desc: '默认分组', ratio: 1 }, vip: { desc: 'vip分组', ratio: 1 } },
    });
    await root.put('/api/user/', { id: aliceId, group: 'svip' });
    const mine = (await alice.get('/api/user/self/groups')).body.data;
    expect(mine).toEqual({ default: { desc: '默认分组', ratio: 1 }, vip: { desc: 'vip分组', ratio: 1 }, svip: { desc: 'svip', ratio: 1 } });
    expect((await gw.client().get('/api/user/self/groups')).status).toBe(401);
  });

  it('lists the models of enabled channels in the groups the user may use', async () => {
    const channel = (name: string, models: string, group: string) =>
      root.post('/api/channel/', {
        mode: 'single',
        channel: { type: 1, name, key: `sk-${name}`, base_url: 'https://api.example.com', models, group },
      });
    expect((await channel('self-models-a', 'm-self-a,m-self-b', 'default')).body.success).toBe(true);
    expect((await channel('self-models-b', 'm-hidden', 'staff-only')).body.success).toBe(true);
    const models = await alice.get('/api/user/models');
    expect(models.body.success).toBe(true);
    expect(models.body.data).toEqual(expect.arrayContaining(['m-self-a', 'm-self-b']));
    expect(models.body.data).not.toContain('m-hidden');
  });

  it('saves notification settings with validation', async () => {
    const put = (body: object) => alice.put('/api/user/setting', body);
    expect((await put({ notify_type: 'sms' })).body).toEqual({ success: false, message: 'notify_type must be email or webhook' });
    expect((await put({ notify_type: 'webhook' })).body).toEqual({ success: false, message: 'webhook URL cannot be empty' });
    expect((await put({ notify_type: 'webhook', webhook_url: 'http://example.com/hook' })).body).toEqual({
      success: false,
      message: 'webhook URL must start with https://',
    });
    expect((await put({ notify_type: 'webhook', webhook_url: 'https://127.0.0.1/hook' })).body.success).toBe(false);
    expect((await put({ notify_type: 'webhook', webhook_url: 'https://[::ffff:127.0.0.1]/hook' })).body.success).toBe(false);
    expect((await put({ notify_type: 'webhook', webhook_url: 'https://localhost/hook' })).body.success).toBe(false);
    expect((await put({ notify_type: 'webhook', webhook_url: 'https://10.1.2.3/hook' })).body).toEqual({
      success: false,
      message: 'URL points to a private or reserved address',
    });
    expect((await put({ notify_type: 'webhook', webhook_url: 'https://user:pw@8.8.8.8/hook' })).body).toEqual({
      success: false,
      message: 'URL must not contain credentials',
    });
    // The operator may allow private addresses (e.g. an intranet hook), but never plain http.
    await root.put('/api/option/', { key: 'AllowPrivateOutboundUrls', value: 'true' });
    expect((await put({ notify_type: 'webhook', webhook_url: 'https://10.1.2.3/hook' })).body).toEqual({ success: true, message: '' });
    expect((await put({ notify_type: 'webhook', webhook_url: 'http://10.1.2.3/hook' })).body).toEqual({
      success: false,
      message: 'webhook URL must start with https://',
    });
    await root.put('/api/option/', { key: 'AllowPrivateOutboundUrls', value: 'false' });
    expect((await put({ notify_type: 'email', notification_email: 'not-an-email' })).body).toEqual({
      success: false,
      message: 'invalid email address',
    });
    expect((await put({ quota_warning_threshold: -1 })).body).toEqual({
      success: false,
      message: 'quota_warning_threshold must not be negative',
    });
    expect(
      (
        await put({
          notify_type: 'webhook',
          webhook_url: 'https://8.8.8.8/hook',
          webhook_secret: 's3cret',
          quota_warning_threshold: 500000,
          accept_unset_model_ratio_model: true,
          role: 100,
        })
      ).body,
    ).toEqual({ success: true, message: '' });
    const setting = JSON.parse((await alice.get('/api/user/self')).body.data.setting);
    expect(setting).toEqual({
      notify_type: 'webhook',
      quota_warning_threshold: 500000,
      webhook_url: 'https://8.8.8.8/hook',
      notification_email: '',
      accept_unset_model_ratio_model: true,
      record_ip_log: false,
      has_webhook_secret: true,
    });
    expect((await alice.get('/api/user/self')).text).not.toContain('s3cret');
    expect((await root.get(`/api/user/${aliceId}`)).text).not.toContain('s3cret');
    expect((await root.get('/api/user/?page_size=100')).text).not.toContain('s3cret');
  });

  it('deletes the own account (soft) but never the root account', async () => {
    expect((await root.delete('/api/user/self')).body).toEqual({ success: false, message: 'the super admin account cannot be deleted' });
    expect((await gw.client().login(ROOT.username, ROOT.password)).body.success).toBe(true);
    const bob = await newUser('bob');
    const bobId = bob.userId!;
    const second = gw.client();
    await second.login('bob', 'password-123');
    expect((await bob.delete('/api/user/self')).body).toEqual({ success: true, message: '' });
    expect((await bob.get('/api/user/self')).status).toBe(401);
    expect((await second.get('/api/user/self')).status).toBe(401);
    expect((await gw.client().login('bob', 'password-123')).body.success).toBe(false);
    expect((await root.get(`/api/user/${bobId}`)).body.data.DeletedAt).toEqual(expect.any(String));
    expect((await gw.client().delete('/api/user/self')).status).toBe(401);
  });

  it('limits failed logins per account', async () => {
    await newUser('target');
    for (let i = 0; i < 10; i++) {
      expect((await gw.client().login('target', `wrong-${i}-pass`)).body.success).toBe(false);
    }
    const locked = await gw.client().login('target', 'password-123');
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ success: false, message: 'too many failed attempts, try later' });
    // X-Forwarded-For is not trusted without TRUSTED_PROXIES, so a forged address gets no fresh budget.
    const spoofed = gw.client();
    spoofed.headers = { 'X-Forwarded-For': '198.51.100.1' };
    expect((await spoofed.login('target', 'password-123')).status).toBe(429);
    // Other accounts from the same address are not locked.
    expect((await gw.client().login('alice', 'new-password-1')).body.success).toBe(true);
  });
});
