import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import type { ApiClient } from '../support/api-client.js';
import { ensureServerBuilt } from '../support/built-server.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { startGatewayChild, type GatewayChild } from '../support/gateway-child.js';
import { openSqlReader } from '../support/sql-reader.js';
import { createChannel, everywhere, expectOk, fresh, MODELS, PRICE_QUOTA, stopChild } from './multi-instance-ledger-suite.js';
import { waitFor } from './relay-fixture.js';

/**
 * Without Redis: the workers of one WORKERS=2 gateway tell each other over the cluster's IPC channel (within
 * 2 s), another instance catches up at its SYNC_FREQUENCY reload. Money stays exact (the database decides).
 */
describe('without Redis: a WORKERS=2 gateway and a second instance on one SQLite file', () => {
  const SYNC_SECONDS = 2;
  let db: TestDatabase;
  let up: FakeUpstream;
  let a: GatewayChild;
  let b: GatewayChild;
  let rootA: ApiClient;
  let key: string;
  let mainChannel: number;

  beforeAll(async () => {
    ensureServerBuilt();
    db = await createTestDatabase('sqlite');
    up = await startFakeUpstream();
    // A's workers never reload on their own in this test: only the IPC relay can tell them.
    a = await startGatewayChild({ ...db.env, WORKERS: '2', SYNC_FREQUENCY: '3600', CRITICAL_RATE_LIMIT: '6' });
    b = await startGatewayChild({ ...db.env, SYNC_FREQUENCY: String(SYNC_SECONDS) });
    rootA = await a.setupRoot();
    expectOk(
      await rootA.put('/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODELS.probe]: 0.001, [MODELS.steady]: 0.001 }) }),
    );
    mainChannel = await createChannel(rootA, up.url, 'main', 10);
    await createChannel(rootA, up.url, 'backup', 0);
    expectOk(await rootA.post('/api/token/', { name: 'spend', remain_quota: 0, unlimited_quota: true, expired_time: -1 }));
    const tokenId = (await rootA.get('/api/token/search?keyword=spend')).body.data.items[0].id as number;
    key = (await rootA.post(`/api/token/${tokenId}/key`)).body.data.key as string;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map(stopChild));
    await up?.close();
    await db?.drop();
  });

  const usedKey = async (gw: GatewayChild) => {
    const before = up.requests.length;
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ model: MODELS.probe, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await res.text();
    // A 503 "no available channel" is an answer too while an instance has not reloaded yet.
    return res.status === 200 ? String(up.requests.slice(before).at(-1)?.headers.authorization) : `${res.status} ${text}`;
  };

  it('a channel disabled through one worker leaves every worker within 2 s, the other instance within SYNC_FREQUENCY', async () => {
    // The new channels reach B at its next reload at the latest.
    await everywhere(b, async () => (await usedKey(b)) === 'Bearer sk-up-main', 'B to use the new channel', (SYNC_SECONDS + 2) * 1000);
    expectOk(await rootA.put('/api/channel/', { id: mainChannel, status: 2 }));
    const since = Date.now();
    await everywhere(a, async () => (await usedKey(a)) === 'Bearer sk-up-backup', 'every worker of A to drop it', 2000);
    await everywhere(b, async () => (await usedKey(b)) === 'Bearer sk-up-backup', 'B to drop it', (SYNC_SECONDS + 2) * 1000);
    expect(Date.now() - since).toBeLessThanOrEqual((SYNC_SECONDS + 2) * 1000);
  });

  it('counts the API rate limit of all the workers together (in the primary)', async () => {
    // Setup, login and the key reveal above used 3 of the 6 critical calls; these go out on new connections,
    // dealt to both workers: counted per worker, all 8 would pass.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await fresh(a.url).login('nobody', 'nothing')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
  });

  it('concurrent calls through both with quota for exactly k: k succeed, 0 drift', async () => {
    const sql = await openSqlReader(db);
    try {
      const k = 40;
      expectOk(await rootA.put('/api/user/', { id: rootA.userId, quota: k * PRICE_QUOTA }));
      const send = (i: number) =>
        fetch(`${(i % 2 ? b : a).url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ model: MODELS.steady, messages: [{ role: 'user', content: 'hi' }] }),
          signal: AbortSignal.timeout(60_000),
        }).then((res) => res.status);
      const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => send(i)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(k);
      expect(statuses.filter((s) => s !== 200 && s !== 403)).toEqual([]);
      const read = async () => {
        const [user] = await sql.rows<{ quota: number }>('SELECT quota FROM users WHERE id = ?', [rootA.userId]);
        const [logs] = await sql.rows<{ n: number; total: number }>(
          'SELECT COUNT(*) AS n, COALESCE(SUM(quota), 0) AS total FROM logs WHERE model_name = ? AND type = 2',
          [MODELS.steady],
        );
        return { quota: Number(user!.quota), count: Number(logs!.n), sum: Number(logs!.total) };
      };
      const final = await waitFor(async () => {
        const now = await read();
        return now.count >= k ? now : undefined;
      }, 'the consume logs');
      expect(final).toEqual({ quota: 0, count: k, sum: k * PRICE_QUOTA });
    } finally {
      await sql.close();
    }
  });

  it('counts the per-user model request limit of all the workers together (in the primary)', async () => {
    const limit = 10;
    expectOk(await rootA.put('/api/user/', { id: rootA.userId, quota: 1_000_000 }));
    for (const [k, value] of [
      ['ModelRequestRateLimitCount', String(limit)],
      ['ModelRequestRateLimitSuccessCount', '100000'],
      ['ModelRequestRateLimitDurationMinutes', '1'],
      ['ModelRequestRateLimitEnabled', 'true'],
    ]) {
      expectOk(await rootA.put('/api/option/', { key: k, value }));
    }
    const probe = fresh(a.url);
    probe.cookie = rootA.cookie;
    probe.userId = rootA.userId;
    await everywhere(
      a,
      async () =>
        ((await probe.get('/api/option/')).body.data as { key: string; value: string }[]).find(
          (o) => o.key === 'ModelRequestRateLimitEnabled',
        )?.value === 'true',
      'the limit on every worker of A',
    );
    try {
      const statuses: number[] = [];
      for (let i = 0; i < limit * 2; i++) {
        const res = await fetch(`${a.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ model: MODELS.probe, messages: [{ role: 'user', content: 'hi' }] }),
        });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
      expect(statuses.slice(limit).every((s) => s === 429)).toBe(true);
    } finally {
      expectOk(await rootA.put('/api/option/', { key: 'ModelRequestRateLimitEnabled', value: 'false' }));
    }
  });
});
