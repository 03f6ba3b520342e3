import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

describe.each(testDatabases())('daily check-in on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
  });
  afterAll(async () => gw?.close());

  const setOption = async (key: string, value: string) =>
    expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);

  async function newUser(username: string): Promise<ApiClient> {
    expect((await root.post('/api/user', { username, password: 'secret-pass-1' })).body.success).toBe(true);
    const client = gw.client();
    expect((await client.login(username, 'secret-pass-1')).body.success).toBe(true);
    return client;
  }

  it('is refused while the option is off, and announced in the status when on', async () => {
    const user = await newUser('ck_off');
    expect((await gw.client().get('/api/status')).body.data.checkin_enabled).toBe(false);
    expect((await user.post('/api/user/checkin')).body).toMatchObject({ success: false, message: 'check-in is not enabled' });
    expect((await user.get('/api/user/checkin')).body.success).toBe(false);
    await setOption('checkin_setting.enabled', 'true');
    expect((await gw.client().get('/api/status')).body.data.checkin_enabled).toBe(true);
    expect((await root.put('/api/option/', { key: 'checkin_setting.min_quota', value: '-5' })).body.success).toBe(false);
  });

  it('rewards once a day within the range, even with parallel calls', async () => {
    await setOption('checkin_setting.enabled', 'true');
    await setOption('checkin_setting.min_quota', '500');
    await setOption('checkin_setting.max_quota', '700');
    const user = await newUser('ck_par');
    const before = (await user.get('/api/user/self')).body.data.quota as number;

    const results = await Promise.all(Array.from({ length: 6 }, () => user.post('/api/user/checkin')));
    const wins = results.filter((r) => r.body.success);
    expect(wins, results.map((r) => r.text).join('\n')).toHaveLength(1);
    for (const lost of results.filter((r) => !r.body.success)) {
      expect(lost.status).toBe(200);
      expect(lost.body.message).toBe('you have already checked in today');
    }
    const award = wins[0]!.body.data.quota_awarded as number;
    expect(award).toBeGreaterThanOrEqual(500);
    expect(award).toBeLessThanOrEqual(700);
    expect(wins[0]!.body.data.checkin_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await user.get('/api/user/self')).body.data.quota).toBe(before + award);

    const status = await user.get('/api/user/checkin');
    expect(status.body.data).toMatchObject({
      enabled: true,
      min_quota: 500,
      max_quota: 700,
      stats: { total_quota: award, total_checkins: 1, checkin_count: 1, checked_in_today: true },
    });
    expect(status.body.data.stats.records).toEqual([{ checkin_date: wins[0]!.body.data.checkin_date, quota_awarded: award }]);
    expect((await user.get('/api/user/checkin?month=1999-01')).body.data.stats).toMatchObject({
      checkin_count: 0,
      total_checkins: 1,
      records: [],
    });
    expect((await user.get('/api/user/checkin?month=bad')).body).toMatchObject({ success: false, message: 'month must look like 2025-01' });
    expect((await gw.client().post('/api/user/checkin')).status).toBe(401);
  });

  it('serves the user agreement and privacy policy the admin writes, and announces them', async () => {
    const anon = gw.client();
    expect((await anon.get('/api/status')).body.data).toMatchObject({ user_agreement_enabled: false, privacy_policy_enabled: false });
    expect((await anon.get('/api/user-agreement')).body).toEqual({ success: true, message: '', data: '' });
    await setOption('legal.user_agreement', '# Terms\nBe nice.');
    await setOption('legal.privacy_policy', 'https://example.com/privacy');
    expect((await anon.get('/api/user-agreement')).body.data).toBe('# Terms\nBe nice.');
    expect((await anon.get('/api/privacy-policy')).body.data).toBe('https://example.com/privacy');
    expect((await anon.get('/api/status')).body.data).toMatchObject({ user_agreement_enabled: true, privacy_policy_enabled: true });
  });
});
