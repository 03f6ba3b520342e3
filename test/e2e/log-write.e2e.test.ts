import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { LogService, LogType } from '@gw/log';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

describe.each(testDatabases())('log writes on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let logs: LogService;
  let db: DataSource;

  const rows = async (where: string, ...params: unknown[]) =>
    (await db.query(`SELECT * FROM logs WHERE ${where} ORDER BY id`, params)) as any[];
  const param = (n: number) => (kind === 'postgres' ? `$${n}` : '?');

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    logs = gw.gateway.app.get(LogService);
    db = gw.gateway.app.get(DataSource);
  });
  afterAll(async () => gw?.close());

  it('record() buffers a row with every column and flush() writes it', async () => {
    logs.record({
      userId: 7,
      username: 'alice',
      type: LogType.Consume,
      content: 'hello 你好 🚀',
      tokenName: 'tk',
      tokenId: 3,
      modelName: 'gpt-4o',
      quota: 12345678901,
      promptTokens: 10,
      completionTokens: 20,
      useTime: 2,
      isStream: true,
      channelId: 5,
      group: 'vip',
      ip: '10.0.0.1',
      requestId: 'req-all-columns',
      other: { model_ratio: 2.5, admin_info: { use_channel: ['5'] } },
      createdAt: 1_700_000_000,
    });
    await logs.flush();
    const [row] = await rows(`request_id = ${param(1)}`, 'req-all-columns');
    expect(row).toMatchObject({
      username: 'alice',
      content: 'hello 你好 🚀',
      token_name: 'tk',
      model_name: 'gpt-4o',
      group: 'vip',
      ip: '10.0.0.1',
    });
    expect(
      [row.user_id, row.type, row.token_id, row.prompt_tokens, row.completion_tokens, row.use_time, row.is_stream, row.channel_id].map(
        Number,
      ),
    ).toEqual([7, 2, 3, 10, 20, 2, 1, 5]);
    expect(Number(row.quota)).toBe(12345678901);
    expect(Number(row.created_at)).toBe(1_700_000_000);
    expect(JSON.parse(row.other)).toEqual({ model_ratio: 2.5, admin_info: { use_channel: ['5'] } });
  });

  it('writes hundreds of buffered rows in batches and defaults created_at to now', async () => {
    const before = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 450; i++) logs.record({ userId: 8, username: 'bulk', type: LogType.System, requestId: `bulk-${i}` });
    await logs.flush();
    const written = await rows(`username = ${param(1)}`, 'bulk');
    expect(written).toHaveLength(450);
    expect(Number(written[0].created_at)).toBeGreaterThanOrEqual(before);
  });

  it('cuts over-long values to the column width and drops NUL characters instead of losing the batch', async () => {
    logs.record({
      userId: 9,
      username: 'u'.repeat(300),
      type: LogType.Manage,
      group: 'g'.repeat(100),
      requestId: 'r'.repeat(100),
      ip: 'long-ip',
      content: 'a\u0000b',
    });
    logs.record({ userId: 9, username: 'fine', type: LogType.Manage, ip: 'long-ip' });
    await logs.flush();
    const written = await rows(`ip = ${param(1)}`, 'long-ip');
    expect(written.map((r) => r.username.length)).toEqual([255, 4]);
    expect(written[0].group).toHaveLength(64);
    expect(written[0].content).toBe('ab');
  });

  it('recordNow() writes inside the caller transaction and disappears with its rollback', async () => {
    await logs.recordNow({ userId: 1, username: 'root', type: LogType.TopUp, content: 'committed', requestId: 'tx-ok' });
    await db
      .transaction(async (manager) => {
        await logs.recordNow(
          { userId: 1, username: 'root', type: LogType.TopUp, content: 'rolled back', requestId: 'tx-rollback' },
          manager,
        );
        throw new Error('abort');
      })
      .catch(() => undefined);
    expect(await rows(`request_id = ${param(1)}`, 'tx-ok')).toHaveLength(1);
    expect(await rows(`request_id = ${param(1)}`, 'tx-rollback')).toHaveLength(0);
  });

  it('skips consume rows while LogConsumeEnabled is off, but keeps other types', async () => {
    expect((await root.put('/api/option/', { key: 'LogConsumeEnabled', value: 'false' })).body.success).toBe(true);
    logs.record({ userId: 1, username: 'root', type: LogType.Consume, requestId: 'consume-off' });
    logs.record({ userId: 1, username: 'root', type: LogType.Manage, requestId: 'manage-off' });
    await logs.flush();
    expect(await rows(`request_id = ${param(1)}`, 'consume-off')).toHaveLength(0);
    expect(await rows(`request_id = ${param(1)}`, 'manage-off')).toHaveLength(1);
    expect((await root.put('/api/option/', { key: 'LogConsumeEnabled', value: 'true' })).body.success).toBe(true);
    logs.record({ userId: 1, username: 'root', type: LogType.Consume, requestId: 'consume-on' });
    await logs.flush();
    expect(await rows(`request_id = ${param(1)}`, 'consume-on')).toHaveLength(1);
  });

  it('a graceful shutdown flushes buffered rows: they are there after a restart on the same database', async () => {
    const shared = gw.db;
    for (let i = 0; i < 30; i++) logs.record({ userId: 2, username: 'shutdown', type: LogType.Consume, requestId: `sd-${i}` });
    await gw.gateway.close();
    gw = await startTestGateway(kind, {}, shared);
    // Drop the database with this gateway at the end of the suite, as the first one would have.
    const reopened = gw;
    gw = { ...reopened, close: async () => (await reopened.close(), await shared.drop()) };
    db = gw.gateway.app.get(DataSource);
    expect(await rows(`username = ${param(1)}`, 'shutdown')).toHaveLength(30);
  });
});
