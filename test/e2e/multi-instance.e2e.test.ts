import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const enabled = Boolean(process.env.TEST_MYSQL_URL && process.env.TEST_REDIS_URL);

/** Two gateway instances on one MariaDB and one Redis, as in a load-balanced deployment. */
describe.runIf(enabled)('two instances sharing MariaDB and Redis', () => {
  let db: TestDatabase;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    db = await createTestDatabase('mysql');
    const env = { SYNC_FREQUENCY: '3600', CRITICAL_RATE_LIMIT: '4', REDIS_KEY_PREFIX: `gwmulti:${Date.now()}:` };
    // Started together: the migration lock must let exactly one of them migrate.
    [a, b] = await Promise.all([startTestGateway('mysql', env, db), startTestGateway('mysql', env, db)]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('shares setup and sessions', async () => {
    const rootOnA = await setupRoot(a);
    expect((await b.client().get('/api/status')).body.data.setup).toBe(true);
    const onB = b.client();
    onB.cookie = rootOnA.cookie;
    onB.userId = rootOnA.userId;
    expect((await onB.get('/api/user/self')).body.data.username).toBe('root');
  });

  it('propagates an option change to the other instance without waiting for the sync', async () => {
    const root = await a.client();
    await root.login('root', 'root-pass-123');
    expect((await root.put('/api/option/', { key: 'SystemName', value: 'Shared Name' })).body.success).toBe(true);
    await expect
      .poll(async () => (await b.client().get('/api/status')).body.data.system_name, { timeout: 5000, interval: 50 })
      .toBe('Shared Name');
  });

  it('counts the critical rate limit across instances', async () => {
    // Setup and two logins above used 3 of the 4 allowed critical calls; 3 more alternate between instances.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await (i % 2 ? a : b).client().login('nobody', 'nothing')).status);
    expect(statuses).toEqual([200, 429, 429]);
  });
});

/** Threat F7: with Redis configured but unreachable, the console keeps working on in-memory limits. */
describe('Redis unreachable', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway('sqlite', { REDIS_CONN_STRING: 'redis://127.0.0.1:1', CRITICAL_RATE_LIMIT: '3' });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('serves setup, login and option changes, and still limits', async () => {
    const root = await setupRoot(gw);
    expect((await root.put('/api/option/', { key: 'SystemName', value: 'No Redis' })).body.success).toBe(true);
    expect((await gw.client().get('/api/status')).body.data.system_name).toBe('No Redis');
    // setup + login used 2 of 3 critical calls.
    expect((await gw.client().login('x', 'y')).status).toBe(200);
    expect((await gw.client().login('x', 'y')).status).toBe(429);
  });
});
