import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const PASSWORD = 'password-123';
const MANAGE = 3;
const SYSTEM = 4;

interface LogItem {
  user_id: number;
  username: string;
  type: number;
  content: string;
  other: string;
}

/** The audit trail: admin quota edits write type-3 rows, registration and invite gifts type-4 rows (as new-api). */
describe.each(testDatabases())('accounts: audit log rows on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;

  const setOptions = async (values: Record<string, string>) => {
    for (const [key, value] of Object.entries(values)) {
      expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    }
  };
  /** Every row of one type about one user, newest first, as an administrator sees them. */
  const adminRows = async (type: number, username: string): Promise<LogItem[]> => {
    const res = await root.get(`/api/log/?type=${type}&username=${username}&page_size=100`);
    expect(res.body.success).toBe(true);
    return res.body.data.items;
  };
  const userIdOf = async (username: string): Promise<number> => {
    const found = await root.get(`/api/user/search?keyword=${username}`);
    return found.body.data.items.find((u: { username: string }) => u.username === username).id;
  };
  const createUser = async (username: string): Promise<number> => {
    expect((await root.post('/api/user/', { username, password: PASSWORD })).body.success).toBe(true);
    return userIdOf(username);
  };
  const loginAs = async (username: string): Promise<ApiClient> => {
    const client = gw.client();
    expect((await client.login(username, PASSWORD)).body.success).toBe(true);
    return client;
  };
  const register = async (username: string, affCode?: string) => {
    const res = await gw.client().post('/api/user/register', { username, password: PASSWORD, ...(affCode ? { aff_code: affCode } : {}) });
    expect(res.body.success, res.text).toBe(true);
    return userIdOf(username);
  };

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    // new-api's defaults: amounts in dollars at 500 000 quota per dollar.
    await setOptions({ DisplayInCurrencyEnabled: 'true', QuotaPerUnit: '500000' });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('an admin quota edit writes one manage row for the user with the old and new amounts', async () => {
    const id = await createUser('audited');
    expect((await root.put('/api/user/', { id, quota: 1_000_000 })).body.success).toBe(true);

    const rows = await adminRows(MANAGE, 'audited');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      user_id: id,
      username: 'audited',
      type: MANAGE,
      content: 'an administrator changed the quota from $0.000000 to $2.000000',
    });
    // Administrators see who acted; the user sees the row without it.
    expect(JSON.parse(rows[0]!.other)).toEqual({ admin_info: { admin_id: root.userId, admin_username: 'root' } });
    const own = await (await loginAs('audited')).get('/api/log/self?type=3');
    expect(own.body.data.items).toHaveLength(1);
    expect(own.body.data.items[0]).toMatchObject({ user_id: id, type: MANAGE, content: rows[0]!.content });
    expect(own.body.data.items[0].other).not.toContain('admin');
  });

  it('formats the amounts as plain quota when currency display is off', async () => {
    const id = await userIdOf('audited');
    await setOptions({ DisplayInCurrencyEnabled: 'false' });
    try {
      expect((await root.put('/api/user/', { id, quota: 1500 })).body.success).toBe(true);
    } finally {
      await setOptions({ DisplayInCurrencyEnabled: 'true' });
    }
    const rows = await adminRows(MANAGE, 'audited');
    expect(rows.map((row) => row.content)).toEqual([
      'an administrator changed the quota from 1000000 quota to 1500 quota',
      'an administrator changed the quota from $0.000000 to $2.000000',
    ]);
  });

  it('writes no manage row when an edit leaves the quota as it was', async () => {
    const id = await userIdOf('audited');
    expect((await root.put('/api/user/', { id, quota: 1500, display_name: 'same quota' })).body.success).toBe(true);
    expect((await root.put('/api/user/', { id, remark: 'no quota in this edit' })).body.success).toBe(true);
    expect(await adminRows(MANAGE, 'audited')).toHaveLength(2);
    expect((await root.get(`/api/user/${id}`)).body.data).toMatchObject({ quota: 1500, display_name: 'same quota' });
  });

  it('registration with an invite code writes system rows for the new user and the inviter', async () => {
    await setOptions({ QuotaForNewUser: '500000', QuotaForInvitee: '250000', QuotaForInviter: '100000' });
    const sponsorId = await createUser('sponsor');
    const affCode = (await (await loginAs('sponsor')).get('/api/user/aff')).body.data;
    const giftedId = await register('gifted', affCode);

    const gifted = await adminRows(SYSTEM, 'gifted');
    expect(gifted.map((row) => [row.user_id, row.content]).sort()).toEqual([
      [giftedId, 'invite code registration gift: $0.500000'],
      [giftedId, 'new user registration gift: $1.000000'],
    ]);
    expect(await adminRows(SYSTEM, 'sponsor')).toMatchObject([
      { user_id: sponsorId, type: SYSTEM, content: 'reward for inviting a new user: $0.200000 added to invite earnings' },
    ]);
    const own = await (await loginAs('gifted')).get('/api/log/self?type=4');
    expect(own.body.data.total).toBe(2);
    expect((await root.get(`/api/user/${giftedId}`)).body.data.quota).toBe(750_000);
  });

  it('registration without an invite code writes only the new-user gift', async () => {
    const soloId = await register('solo');
    expect(await adminRows(SYSTEM, 'solo')).toMatchObject([{ user_id: soloId, content: 'new user registration gift: $1.000000' }]);
  });

  it('writes no system row for a gift of 0', async () => {
    await setOptions({ QuotaForNewUser: '0', QuotaForInvitee: '0', QuotaForInviter: '0' });
    const affCode = (await (await loginAs('sponsor')).get('/api/user/aff')).body.data;
    await register('nogift', affCode);
    expect(await adminRows(SYSTEM, 'nogift')).toEqual([]);
    expect(await adminRows(SYSTEM, 'sponsor')).toHaveLength(1);
    expect((await root.get('/api/log/?type=3&page_size=100')).body.data.total).toBe(2);
  });
});
