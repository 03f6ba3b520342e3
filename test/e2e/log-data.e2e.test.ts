import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogService, LogType, QuotaDataService } from '@gw/log';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { ROOT, setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const HOUR = 3600;

describe.each(testDatabases())('dashboard data (quota_data) on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let alice: ApiClient;
  let logs: LogService;
  let data: QuotaDataService;
  let aliceId: number;
  const h0 = Math.floor(Date.now() / 1000 / HOUR) * HOUR - 5 * HOUR;
  const range = `start_timestamp=${h0 - HOUR}&end_timestamp=${h0 + 3 * HOUR}`;

  const get = async (client: ApiClient, path: string) => {
    const res = await client.get(path);
    expect(res.body.success, res.text).toBe(true);
    return res.body.data as any[];
  };
  const consume = (userId: number, username: string, modelName: string, createdAt: number, quota: number, tokens: number) =>
    logs.record({ userId, username, type: LogType.Consume, modelName, quota, promptTokens: tokens, completionTokens: 1, createdAt });

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    expect((await root.post('/api/user/', { username: 'alice', password: 'password-123' })).body.success).toBe(true);
    alice = gw.client();
    await alice.login('alice', 'password-123');
    aliceId = alice.userId!;
    logs = gw.gateway.app.get(LogService);
    data = gw.gateway.app.get(QuotaDataService);
    consume(aliceId, 'alice', 'gpt-4o', h0 + 10, 100, 9);
    consume(aliceId, 'alice', 'gpt-4o', h0 + 3000, 50, 4);
    consume(aliceId, 'alice', 'gpt-4o', h0 + HOUR + 1, 7, 0);
    consume(aliceId, 'alice', 'claude', h0 + 20, 30, 2);
    consume(1, 'root', 'gpt-4o', h0 + 5, 1000, 99);
    logs.record({ userId: aliceId, username: 'alice', type: LogType.TopUp, quota: 99999, createdAt: h0 + 1 });
    await logs.flush();
    await data.save();
  });
  afterAll(async () => gw?.close());

  it('admin overview sums every user per model and hour; with username it lists that user', async () => {
    expect(await get(root, `/api/data/?${range}`)).toEqual([
      { id: 0, user_id: 0, username: '', model_name: 'claude', created_at: h0, count: 1, quota: 30, token_used: 3 },
      { id: 0, user_id: 0, username: '', model_name: 'gpt-4o', created_at: h0, count: 3, quota: 1150, token_used: 10 + 5 + 100 },
      { id: 0, user_id: 0, username: '', model_name: 'gpt-4o', created_at: h0 + HOUR, count: 1, quota: 7, token_used: 1 },
    ]);
    const aliceRows = await get(root, `/api/data/?${range}&username=alice`);
    expect(aliceRows.map((r) => [r.user_id, r.model_name, r.created_at, r.count, r.quota, r.token_used])).toEqual([
      [aliceId, 'claude', h0, 1, 30, 3],
      [aliceId, 'gpt-4o', h0, 2, 150, 15],
      [aliceId, 'gpt-4o', h0 + HOUR, 1, 7, 1],
    ]);
  });

  it('admin per-user view sums every model per user and hour', async () => {
    expect(await get(root, `/api/data/users?${range}`)).toEqual([
      { id: 0, user_id: 0, username: 'alice', model_name: '', created_at: h0, count: 3, quota: 180, token_used: 18 },
      { id: 0, user_id: 0, username: 'root', model_name: '', created_at: h0, count: 1, quota: 1000, token_used: 100 },
      { id: 0, user_id: 0, username: 'alice', model_name: '', created_at: h0 + HOUR, count: 1, quota: 7, token_used: 1 },
    ]);
    expect((await alice.get(`/api/data/users?${range}`)).body.success).toBe(false);
  });

  it('a later save adds into the existing hour row instead of duplicating it', async () => {
    consume(aliceId, 'alice', 'gpt-4o', h0 + 100, 11, 1);
    await logs.flush();
    await data.save();
    const rows = await get(alice, `/api/data/self?${range}`);
    expect(rows.filter((r) => r.model_name === 'gpt-4o' && r.created_at === h0)).toMatchObject([{ count: 3, quota: 161, token_used: 17 }]);
  });

  it('self view: own rows only, at most one month, clear errors for bad ranges', async () => {
    const rows = await get(alice, `/api/data/self/?${range}&username=root`);
    expect(new Set(rows.map((r) => r.username))).toEqual(new Set(['alice']));
    const err = async (client: ApiClient, path: string) => (await client.get(path)).body;
    expect(await err(alice, `/api/data/self?start_timestamp=0&end_timestamp=${40 * 86_400}`)).toEqual({
      success: false,
      message: 'the time span must not exceed one month',
    });
    expect(await err(alice, '/api/data/self?end_timestamp=10')).toEqual({ success: false, message: 'start_timestamp is required' });
    expect(await err(root, '/api/data/?start_timestamp=x&end_timestamp=1')).toEqual({
      success: false,
      message: 'start_timestamp must be an integer',
    });
    expect(await err(root, '/api/data/?start_timestamp=10&end_timestamp=1')).toEqual({
      success: false,
      message: 'start_timestamp must not be after end_timestamp',
    });
    expect((await err(alice, `/api/data/?${range}`)).success).toBe(false);
  });

  it('a dashboard read shows what was counted without waiting for the export interval', async () => {
    consume(aliceId, 'alice', 'fresh-model', h0 + 2 * HOUR, 12, 3);
    await logs.flush();
    // No data.save(): the read itself must write the pending bucket first.
    expect((await get(alice, `/api/data/self?${range}`)).filter((r) => r.model_name === 'fresh-model')).toMatchObject([
      { count: 1, quota: 12, token_used: 4 },
    ]);
    expect((await get(root, `/api/data/?${range}`)).filter((r) => r.model_name === 'fresh-model')).toMatchObject([{ count: 1, quota: 12 }]);
  });

  it('nothing is gathered while DataExportEnabled is off', async () => {
    expect((await root.put('/api/option/', { key: 'DataExportEnabled', value: 'false' })).body.success).toBe(true);
    consume(aliceId, 'alice', 'off-model', h0, 5, 5);
    await logs.flush();
    await data.save();
    expect((await get(root, `/api/data/?${range}`)).map((r) => r.model_name)).not.toContain('off-model');
    expect((await root.put('/api/option/', { key: 'DataExportEnabled', value: 'true' })).body.success).toBe(true);
  });

  it('a graceful shutdown saves the pending buckets', async () => {
    consume(aliceId, 'alice', 'shutdown-model', h0, 5, 5);
    const shared = gw.db;
    await gw.gateway.close();
    const reopened = await startTestGateway(kind, {}, shared);
    gw = {
      ...reopened,
      close: async () => {
        await reopened.close();
        await shared.drop();
      },
    };
    root = gw.client();
    await root.login(ROOT.username, ROOT.password);
    expect((await get(root, `/api/data/?${range}`)).filter((r) => r.model_name === 'shutdown-model')).toMatchObject([
      { count: 1, quota: 5 },
    ]);
  });
});
