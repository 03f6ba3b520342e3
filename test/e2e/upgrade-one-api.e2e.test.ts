import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import { describeColumns, openRawDb, type ColumnInfo, type RawDb } from '../fixtures/new-api/raw-db.js';
import { legacyTables } from '../fixtures/new-api/schema.js';
import { OLD, seedNewApiDatabase } from '../fixtures/new-api/seed.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../support/databases.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from './relay-fixture.js';

const TABLES = legacyTables('one-api').map((table) => table.name);

/**
 * An older one-api database: fewer tables (no setup record) and fewer columns. The gateway adds what it
 * reads, treats the installation as set up (its root exists), and keeps one-api's columns as they were.
 */
describe.each(testDatabases())('upgrade from a one-api database on %s', (kind) => {
  let up: FakeUpstream;
  let db: TestDatabase;
  let gw: TestGateway;
  let raw: RawDb;
  let columnsBefore: ColumnInfo[];

  beforeAll(async () => {
    up = await startFakeUpstream();
    db = await createTestDatabase(kind);
    await seedNewApiDatabase(db, up.url, 'one-api');
    raw = await openRawDb(db);
    columnsBefore = await describeColumns(raw, TABLES);
    gw = await startTestGateway(kind, {}, db);
  });

  afterAll(async () => {
    await gw?.close();
    await raw?.close();
    await up?.close();
    await db?.drop();
  });

  it('counts as set up because its root exists: the wizard cannot create another root', async () => {
    expect((await gw.client().get('/api/status')).body.data.setup).toBe(true);
    const wizard = await gw
      .client()
      .post('/api/setup', { username: 'intruder', password: 'intruder-123', confirmPassword: 'intruder-123' });
    expect(wizard.body.success).toBe(false);
    expect(await raw.query('SELECT id FROM users WHERE username = ?', ['intruder'])).toEqual([]);
  });

  it('signs in with old passwords and relays with an old token, charging the old rows', async () => {
    const root = gw.client();
    expect((await root.login(OLD.root.username, OLD.root.password)).body).toMatchObject({ success: true, data: { id: OLD.root.id } });
    const client = new OpenAI({ apiKey: `sk-${OLD.aliceToken.key}`, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: OLD.single.model, messages: [{ role: 'user', content: 'hello' }] });
    expect(reply.choices[0]?.message.content).toBeTruthy();
    const token = await waitFor(async () => {
      const [row] = await raw.query<{ used_quota: unknown }>('SELECT used_quota FROM tokens WHERE id = ?', [OLD.aliceToken.id]);
      return Number(row!.used_quota) > OLD.aliceToken.usedQuota ? row : undefined;
    }, 'the token charge');
    expect(Number(token.used_quota)).toBeGreaterThan(OLD.aliceToken.usedQuota);
  });

  it("keeps every one-api column with its type and adds the gateway's columns beside them", async () => {
    const after = await describeColumns(raw, TABLES);
    const afterByName = new Map(after.map((column) => [`${column.table}.${column.column}`, column.type]));
    expect(columnsBefore.filter((column) => afterByName.get(`${column.table}.${column.column}`) !== column.type)).toEqual([]);
    for (const added of ['users.setting', 'tokens.model_limits', 'channels.channel_info', 'logs.request_id'])
      expect(afterByName.has(added), added).toBe(true);
  });
});
