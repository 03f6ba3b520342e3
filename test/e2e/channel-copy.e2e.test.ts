import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

// POST /api/channel/copy/:id (new-api): the console cannot copy a channel itself because the key
// never leaves the server.
describe.each(testDatabases())('channel copy on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let db: DataSource;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    db = gw.gateway.app.get(DataSource);
  });
  afterAll(async () => {
    await gw?.close();
  });

  const keyOf = async (id: number) =>
    ((await db.query(`SELECT ${kind === 'mysql' ? '`key`' : '"key"'} AS k FROM channels WHERE id = ${id}`)) as { k: string }[])[0]?.k;

  it('copies key, models, groups and tag with a suffixed name and a reset balance', async () => {
    const created = await root.post('/api/channel/', {
      mode: 'single',
      channel: {
        type: 1,
        name: 'origin',
        key: 'sk-copy-origin',
        models: 'gpt-4o,gpt-4o-mini',
        group: 'default,vip',
        tag: 'blue',
        priority: 7,
      },
    });
    const id = created.body.data.ids[0] as number;
    await db.query(`UPDATE channels SET balance = 12.5, used_quota = 999, response_time = 300 WHERE id = ${id}`);

    const copied = await root.post(`/api/channel/copy/${id}`);
    expect(copied.status).toBe(200);
    expect(copied.body).toMatchObject({ success: true, data: { id: expect.any(Number) } });
    const copyId = copied.body.data.id as number;
    expect(copyId).not.toBe(id);

    const view = (await root.get(`/api/channel/${copyId}`)).body.data;
    expect(view).toMatchObject({
      name: 'origin_复制',
      models: 'gpt-4o,gpt-4o-mini',
      group: 'default,vip',
      tag: 'blue',
      priority: 7,
      balance: 0,
      used_quota: 0,
      response_time: 0,
      key: '',
    });
    expect(await keyOf(copyId)).toBe('sk-copy-origin');
    const abilities = (await db.query(`SELECT COUNT(*) AS n FROM abilities WHERE channel_id = ${copyId}`)) as { n: number | string }[];
    expect(Number(abilities[0]!.n)).toBe(4);

    const kept = await root.post(`/api/channel/copy/${id}?suffix=-b&reset_balance=false`);
    const keptView = (await root.get(`/api/channel/${kept.body.data.id}`)).body.data;
    expect(keptView).toMatchObject({ name: 'origin-b', balance: 12.5, used_quota: 999 });
  });

  it('answers a missing or malformed id in the envelope', async () => {
    expect((await root.post('/api/channel/copy/999999')).body).toMatchObject({ success: false, message: 'channel not found, refresh' });
    const bad = await root.post('/api/channel/copy/abc');
    expect(bad.status).toBe(200);
    expect(bad.body.success).toBe(false);
  });

  it('is for admins only', async () => {
    const anonymous = gw.client();
    expect((await anonymous.post('/api/channel/copy/1')).status).toBe(401);
  });
});
