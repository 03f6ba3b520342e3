import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../support/databases.js';
import { FREE_SLOT } from '@gw/token';
import { openSqlProbe, type SqlProbe } from '../support/sql-probe.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from './relay-fixture.js';

const MODEL = 'two-instances-priced';
/** ModelPrice 0.001 × QuotaPerUnit 500000. */
const CALL_QUOTA = 500;
const K = 9;
const REQUESTS = 500;

/**
 * Issue 19: two gateway instances share one server database (and Redis when set); 500 concurrent
 * requests spread over both by a user whose quota pays for exactly k: exactly k succeed, and the final
 * balance equals the initial minus the logged charges, with no reservation left behind.
 */
describe.each(testDatabases().filter((kind) => kind !== 'sqlite'))('money across two instances on %s', (kind) => {
  let db: TestDatabase;
  let up: FakeUpstream;
  let a: TestGateway;
  let b: TestGateway;
  let probe: SqlProbe;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    up = await startFakeUpstream({ record: false });
    const redis: Record<string, string> = process.env.TEST_REDIS_URL
      ? { REDIS_CONN_STRING: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: `gwtwo:${Date.now()}:` }
      : {};
    a = await startTestGateway(kind, redis, db);
    b = await startTestGateway(kind, redis, db);
    probe = await openSqlProbe(db);
  }, 120_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await probe?.close();
    await up?.close();
    await db?.drop();
  });

  it(`${REQUESTS} concurrent priced requests over both instances: exactly ${K} succeed, 0 drift`, async () => {
    const root = await setupRoot(a);
    const saved = await root.put('/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: 0.001 }) });
    expect(saved.body.success, saved.text).toBe(true);
    const channel = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'two', key: 'sk-up-two', models: MODEL, group: 'default', base_url: up.url },
    });
    expect(channel.body.success, channel.text).toBe(true);
    expect((await root.post('/api/token/', { name: 'two', remain_quota: 0, unlimited_quota: true, expired_time: -1 })).body.success).toBe(
      true,
    );
    const tokenId = (await root.get('/api/token/search?keyword=two')).body.data.items[0].id as number;
    const key = (await root.post(`/api/token/${tokenId}/key`)).body.data.key as string;
    const userId = root.userId!;
    await probe.query(`UPDATE users SET quota = ${K * CALL_QUOTA}, used_quota = 0 WHERE id = ${userId}`);
    // Both instances know the channel and the price before the load (B learns them through the sync or Redis).
    const probeB = () =>
      fetch(`${b.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => (await r.text()).includes(MODEL));
    await waitFor(async () => ((await probeB()) ? true : undefined), 'instance B to see the channel', 70_000);

    const statuses = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
        }).then(async (res) => {
          await res.text();
          return res.status;
        }),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(K);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 403)).toBe(true);
    const logged = await waitFor(
      async () => {
        const [row] = await probe.query<{ total: number | string | null; n: number | string }>(
          `SELECT SUM(quota) AS total, COUNT(*) AS n FROM logs WHERE user_id = ${userId} AND type = 2 AND model_name = '${MODEL}'`,
        );
        return Number(row!.n) >= K ? Number(row!.total) : undefined;
      },
      'the consume log rows',
      10_000,
    );
    expect(logged).toBe(K * CALL_QUOTA);
    const [user] = await probe.query<{ quota: number | string; used_quota: number | string }>(
      `SELECT quota, used_quota FROM users WHERE id = ${userId}`,
    );
    expect(Number(user!.quota)).toBe(0);
    expect(Number(user!.used_quota)).toBe(logged);
    await waitFor(
      async () => {
        const [row] = await probe.query<{ n: number | string }>(
          `SELECT COUNT(*) AS n FROM quota_reservations WHERE charged <> ${FREE_SLOT}`,
        );
        return Number(row!.n) === 0 ? true : undefined;
      },
      'no reservation left',
      10_000,
    );
  }, 180_000);
});
