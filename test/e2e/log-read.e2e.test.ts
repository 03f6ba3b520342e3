import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerRegistry } from '@nestjs/schedule';
import { LogRetentionService, LogService, LogType, type NewLog } from '@gw/log';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const DAY = 86_400;

describe.each(testDatabases())('log read API on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let alice: ApiClient;
  let bob: ApiClient;
  let logs: LogService;
  let channelId: number;
  /** Set when the rows are written: the rpm/tpm window is the last 60 s, so a slow start must not age them. */
  let now = 0;
  const ids: Record<string, number> = {};

  async function createUser(username: string): Promise<ApiClient> {
    expect((await root.post('/api/user/', { username, password: 'password-123' })).body.success).toBe(true);
    const client = gw.client();
    expect((await client.login(username, 'password-123')).body.success).toBe(true);
    ids[username] = client.userId!;
    return client;
  }

  const items = async (client: ApiClient, path: string) => {
    const res = await client.get(path);
    expect(res.body.success, res.text).toBe(true);
    return res.body.data as { items: any[]; total: number; page: number; page_size: number };
  };
  const requestIds = async (client: ApiClient, path: string) => (await items(client, path)).items.map((item) => item.request_id);

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    alice = await createUser('alice');
    bob = await createUser('bob');
    const channel = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'log-chan', key: 'sk-log-test', models: 'gpt-4o', group: 'default' },
    });
    channelId = channel.body.data.ids[0];
    logs = gw.gateway.app.get(LogService);
    now = Math.floor(Date.now() / 1000);
    const a = { userId: ids.alice!, username: 'alice' };
    const b = { userId: ids.bob!, username: 'bob' };
    const rows: NewLog[] = [
      {
        ...a,
        type: LogType.Consume,
        requestId: 'a-old',
        modelName: 'gpt-4o',
        quota: 1000,
        promptTokens: 1,
        completionTokens: 1,
        createdAt: now - 10 * DAY,
      },
      { ...a, type: LogType.TopUp, requestId: 'a-topup', content: 'top up 5', quota: 500, createdAt: now - 7200 },
      {
        ...a,
        type: LogType.Consume,
        requestId: 'a-mini',
        modelName: 'gpt_4-mini',
        tokenName: 'tk-b',
        group: 'vip',
        channelId,
        quota: 200,
        promptTokens: 20,
        completionTokens: 10,
        createdAt: now - 3600,
      },
      { ...b, type: LogType.Manage, requestId: 'b-manage', content: 'admin note', createdAt: now - 20 },
      {
        ...b,
        type: LogType.Consume,
        requestId: 'b-recent',
        modelName: 'gpt-4o',
        tokenName: 'tk-a',
        channelId,
        quota: 50,
        promptTokens: 3,
        completionTokens: 4,
        createdAt: now - 10,
      },
      {
        ...a,
        type: LogType.Consume,
        requestId: 'a-recent',
        modelName: 'gpt-4o',
        tokenName: 'tk-a',
        group: 'default',
        channelId,
        quota: 100,
        promptTokens: 10,
        completionTokens: 5,
        useTime: 3,
        isStream: true,
        tokenId: 4,
        ip: '10.1.2.3',
        createdAt: now - 5,
        other: { model_ratio: 1.5, frt: 120, admin_info: { use_channel: [String(channelId)] }, stream_status: { ok: true } },
      },
    ];
    for (const row of rows) logs.record(row);
    await logs.flush();
  });
  afterAll(async () => gw?.close());

  it('admin list: newest first, every Log field, channel name resolved, other as new-api JSON text', async () => {
    const page = await items(root, '/api/log/?username=alice');
    expect(page.total).toBe(4);
    expect(page.items.map((i) => i.request_id)).toEqual(['a-recent', 'a-mini', 'a-topup', 'a-old']);
    const [first] = page.items;
    expect(first).toEqual({
      id: expect.any(Number),
      user_id: ids.alice,
      created_at: now - 5,
      type: 2,
      content: '',
      username: 'alice',
      token_name: 'tk-a',
      model_name: 'gpt-4o',
      quota: 100,
      prompt_tokens: 10,
      completion_tokens: 5,
      use_time: 3,
      is_stream: true,
      channel: channelId,
      channel_name: 'log-chan',
      token_id: 4,
      group: 'default',
      ip: '10.1.2.3',
      request_id: 'a-recent',
      other: expect.any(String),
    });
    expect(JSON.parse(first.other)).toEqual({
      model_ratio: 1.5,
      frt: 120,
      admin_info: { use_channel: [String(channelId)] },
      stream_status: { ok: true },
    });
    expect(page.items[0].id).toBeGreaterThan(page.items[1].id);
  });

  it('admin filters: type, token_name, model_name (LIKE, `_` literal), time range, channel, group, request_id', async () => {
    const q = (query: string) => requestIds(root, `/api/log/?${query}`);
    expect(await q('username=alice&type=2')).toEqual(['a-recent', 'a-mini', 'a-old']);
    expect(await q('username=alice&type=0')).toHaveLength(4);
    expect(await q('token_name=tk-a')).toEqual(['a-recent', 'b-recent']);
    expect(await q('model_name=gpt-4o')).toEqual(['a-recent', 'b-recent', 'a-old']);
    expect(await q('model_name=gpt_4-mini')).toEqual(['a-mini']);
    expect(await q('model_name=gpt_4o')).toEqual([]);
    expect(await q('model_name=gpt%25&type=2')).toEqual(['a-recent', 'b-recent', 'a-mini', 'a-old']);
    expect(await q(`start_timestamp=${now - 4000}&end_timestamp=${now}&username=alice`)).toEqual(['a-recent', 'a-mini']);
    expect(await q(`end_timestamp=${now - 3600}&username=alice`)).toEqual(['a-mini', 'a-topup', 'a-old']);
    expect(await q(`channel=${channelId}`)).toEqual(['a-recent', 'b-recent', 'a-mini']);
    expect(await q('group=vip')).toEqual(['a-mini']);
    expect(await q('request_id=b-manage')).toEqual(['b-manage']);
    expect(await q('username=bob&type=3')).toEqual(['b-manage']);
  });

  it('self list: own rows only, admin-only filters ignored, channel and admin info hidden, ids are positions', async () => {
    const page = await items(alice, '/api/log/self/');
    expect(page.total).toBe(4);
    expect(page.items.map((i) => i.request_id)).toEqual(['a-recent', 'a-mini', 'a-topup', 'a-old']);
    expect(page.items.map((i) => i.id)).toEqual([1, 2, 3, 4]);
    for (const item of page.items) expect([item.channel, item.channel_name]).toEqual([0, '']);
    expect(JSON.parse(page.items[0].other)).toEqual({ model_ratio: 1.5, frt: 120 });
    expect(page.items.map((i) => JSON.stringify(i)).join()).not.toContain('log-chan');
    expect(await requestIds(alice, '/api/log/self?username=bob')).toHaveLength(4);
    expect(await requestIds(alice, `/api/log/self?channel=${channelId + 1000}`)).toHaveLength(4);
    expect(await requestIds(alice, '/api/log/self?type=2&model_name=gpt-4o')).toEqual(['a-recent', 'a-old']);
    expect(await requestIds(bob, '/api/log/self')).toEqual(['b-recent', 'b-manage']);
    const second = await items(alice, '/api/log/self?p=2&page_size=2');
    expect(second).toMatchObject({ total: 4, page: 2, page_size: 2 });
    expect(second.items.map((i) => [i.id, i.request_id])).toEqual([
      [3, 'a-topup'],
      [4, 'a-old'],
    ]);
  });

  it('stat: quota over the range, rpm/tpm over the last 60 s, consume rows only', async () => {
    const stat = async (client: ApiClient, path: string) => {
      const res = await client.get(path);
      expect(res.body.success, res.text).toBe(true);
      return res.body.data;
    };
    expect(await stat(root, '/api/log/stat?username=alice')).toEqual({ quota: 1300, rpm: 1, tpm: 15 });
    expect(await stat(root, `/api/log/stat?username=alice&start_timestamp=${now - 4000}&end_timestamp=${now - 3000}`)).toEqual({
      quota: 200,
      rpm: 1,
      tpm: 15,
    });
    expect(await stat(root, '/api/log/stat?model_name=gpt-4o')).toEqual({ quota: 1150, rpm: 2, tpm: 22 });
    expect(await stat(root, `/api/log/stat?channel=${channelId}`)).toEqual({ quota: 350, rpm: 2, tpm: 22 });
    expect(await stat(alice, '/api/log/self/stat?username=bob')).toEqual({ quota: 1300, rpm: 1, tpm: 15 });
    expect(await stat(bob, '/api/log/self/stat')).toEqual({ quota: 50, rpm: 1, tpm: 7 });
  });

  it('admin routes refuse users; search answers deprecated', async () => {
    for (const res of [
      await alice.get('/api/log/'),
      await alice.get('/api/log/stat'),
      await alice.delete(`/api/log/?target_timestamp=${now}`),
    ]) {
      expect(res.body.success).toBe(false);
    }
    expect(await requestIds(root, '/api/log/?username=alice')).toHaveLength(4);
    expect((await root.get('/api/log/search?keyword=x')).body).toMatchObject({
      success: false,
      message: expect.stringContaining('deprecated'),
    });
    expect((await alice.get('/api/log/self/search?keyword=x')).body).toMatchObject({
      success: false,
      message: expect.stringContaining('deprecated'),
    });
    expect((await gw.client().get('/api/log/self/')).status).toBe(401);
  });

  it('bad parameters give clear errors or clamps, never a 500', async () => {
    const expectError = async (path: string, message: string) => {
      const res = await root.get(path);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: false, message });
    };
    await expectError('/api/log/?start_timestamp=abc', 'start_timestamp must be an integer');
    await expectError('/api/log/?end_timestamp=1e9', 'end_timestamp must be an integer');
    await expectError('/api/log/self/?type=x', 'type must be an integer');
    await expectError('/api/log/stat?channel=-1', 'channel must be at least 0');
    await expectError('/api/log/?type=1&type=2', 'type must be an integer');
    await expectError(`/api/log/?start_timestamp=${now}&end_timestamp=${now - 10}`, 'start_timestamp must not be after end_timestamp');
    await expectError(`/api/log/?model_name=${'x'.repeat(300)}`, 'model_name is too long');
    const clamped = await items(root, '/api/log/?page_size=10000&p=abc');
    expect([clamped.page, clamped.page_size]).toEqual([1, 100]);
    expect((await root.get('/api/log/?start_timestamp=&type=&model_name=')).body.success).toBe(true);
    const del = async (path: string) => (await root.delete(path)).body;
    expect(await del('/api/log/')).toEqual({ success: false, message: 'target timestamp is required' });
    expect(await del('/api/log/?target_timestamp=0')).toEqual({ success: false, message: 'target timestamp is required' });
    expect(await del('/api/log/?target_timestamp=yesterday')).toEqual({
      success: false,
      message: 'target timestamp must be a unix timestamp in seconds',
    });
  });

  it('DELETE /api/log/ removes rows created before the timestamp and returns the count', async () => {
    for (let i = 0; i < 1205; i++)
      logs.record({ userId: ids.bob!, username: 'bob', type: LogType.System, requestId: `bulk-${i}`, createdAt: now - 5 * DAY });
    await logs.flush();
    expect((await root.delete(`/api/log/?target_timestamp=${now - DAY}`)).body).toEqual({ success: true, message: '', data: 1206 });
    expect(await requestIds(root, '/api/log/?username=alice')).toEqual(['a-recent', 'a-mini', 'a-topup']);
    expect((await items(root, '/api/log/?username=bob')).total).toBe(2);
    expect((await root.delete(`/api/log/?target_timestamp=${now - DAY}`)).body.data).toBe(0);
  });

  it('retention deletes only rows older than LogRetentionDays, and nothing when it is 0', async () => {
    const retention = gw.gateway.app.get(LogRetentionService);
    logs.record({ userId: ids.bob!, username: 'bob', type: LogType.System, requestId: 'three-days', createdAt: now - 3 * DAY });
    logs.record({ userId: ids.bob!, username: 'bob', type: LogType.System, requestId: 'one-day', createdAt: now - DAY });
    await logs.flush();
    expect(await retention.runOnce(now)).toBe(0);
    expect((await root.put('/api/option/', { key: 'LogRetentionDays', value: '2' })).body.success).toBe(true);
    expect(await retention.runOnce(now)).toBe(1);
    expect(await requestIds(root, '/api/log/?username=bob&type=4')).toEqual(['one-day']);
    expect(await requestIds(root, '/api/log/?username=alice')).toEqual(['a-recent', 'a-mini', 'a-topup']);
  });

  it("GET /api/log/token: the presented key's own rows, self view, with CORS; a bad key is refused", async () => {
    const created = await alice.post('/api/token/', { name: 'log-key', remain_quota: 1000, expired_time: -1 });
    expect(created.body.success, created.text).toBe(true);
    const token = (await alice.get('/api/token/search?keyword=log-key')).body.data.items.find(
      (t: { name: string }) => t.name === 'log-key',
    );
    const key = (await alice.post(`/api/token/${token.id}/key`)).body.data.key as string;
    logs.record({
      userId: ids.alice!,
      username: 'alice',
      type: LogType.Consume,
      tokenId: token.id,
      tokenName: 'log-key',
      channelId,
      requestId: 'by-key-1',
      other: { admin_info: { x: 1 }, model_ratio: 1 },
    });
    logs.record({
      userId: ids.alice!,
      username: 'alice',
      type: LogType.Consume,
      tokenId: token.id,
      tokenName: 'log-key',
      requestId: 'by-key-2',
    });
    logs.record({ userId: ids.bob!, username: 'bob', type: LogType.Consume, tokenId: token.id + 1000, requestId: 'other-key' });
    await logs.flush();
    const res = await gw.client().get('/api/log/token', { Authorization: `Bearer ${key}` });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.body.success, res.text).toBe(true);
    expect(res.body.data.map((i: any) => [i.id, i.request_id, i.channel, i.channel_name])).toEqual([
      [1, 'by-key-2', 0, ''],
      [2, 'by-key-1', 0, ''],
    ]);
    expect(JSON.parse(res.body.data[1].other)).toEqual({ model_ratio: 1 });
    expect((await gw.client().get('/api/log/token', { Authorization: 'Bearer sk-not-a-real-key' })).status).toBe(401);
    expect((await gw.client().get('/api/log/token')).status).toBe(401);
  });

  it('the retention job is scheduled on the master node only', async () => {
    expect(gw.gateway.app.get(SchedulerRegistry).doesExist('interval', 'log-retention')).toBe(true);
    const slave = await startTestGateway(kind, { NODE_TYPE: 'slave' }, gw.db);
    try {
      expect(slave.gateway.app.get(SchedulerRegistry).doesExist('interval', 'log-retention')).toBe(false);
    } finally {
      await slave.close();
    }
  });
});
