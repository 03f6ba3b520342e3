import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoDrift } from '../support/billed-caller.js';
import { testDatabases } from '../support/databases.js';
import { openSqlProbe, type SqlProbe } from '../support/sql-probe.js';
import { startRelayFixture, waitFor, type RelayFixture } from './relay-fixture.js';

const PER_CALL = 'beside-per-call';
/** ModelPrice 0.001 × QuotaPerUnit 500000 = 500 quota per call, reserved exactly. */
const CALL_QUOTA = 500;

/**
 * The reserve that runs beside the upstream call (docs/billing.md). The gateway overlaps only for callers its
 * memory sees as rich; here that view is made stale on purpose (the balance is lowered in the database behind
 * its back, as another instance's spending would), so the requests overlap while the database refuses most of
 * them. The database must still decide: at most k served, refused ones cancelled upstream and answered 403
 * with nothing written before, and no drift.
 */
describe.each(testDatabases())('a reserve beside the upstream call on %s', (kind) => {
  let f: RelayFixture;
  let probe: SqlProbe;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelPrice', { [PER_CALL]: 0.001 });
    await f.setOption('PreConsumedQuota', '0');
    await f.channel({ models: PER_CALL });
    probe = { query: (sql) => f.ds.query(sql), close: async () => {} };
  });
  afterAll(async () => {
    await f?.close();
  });

  /** One chat call; `onHead` runs when the answer's status line and headers arrive. */
  const call = (key: string, body: Record<string, unknown> = {}, onHead?: () => void) =>
    fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: PER_CALL, messages: [{ role: 'user', content: 'hi' }], ...body }),
    }).then(async (res) => {
      onHead?.();
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    });

  let users = 0;
  /**
   * A new user and unlimited token whose balance the gateway has cached as rich (one request served), then
   * set to `quota` in the database behind its back. A user of its own per case: a refusal makes that user
   * reserve first for a while.
   */
  async function staleRichCaller(quota: number) {
    const username = `beside${++users}${Date.now() % 100000}`;
    expect((await f.root.post('/api/user/', { username, password: 'password-123' })).body.success).toBe(true);
    const client = f.gw.client();
    const login = await client.login(username, 'password-123');
    expect(login.body.success, login.text).toBe(true);
    const userId = login.body.data.id as number;
    await f.setQuota(userId, 10_000_000);
    const token = await f.token({ unlimited_quota: true }, client);
    expect((await call(token.key)).status).toBe(200);
    await f.logCount({ userId }, 1);
    const used = (await f.userRow(userId)).usedQuota;
    await f.setQuota(userId, quota);
    const row = await f.tokenRow(token.id);
    const caller = { key: token.key, userId, tokenId: token.id };
    return { caller, initial: { user: quota + used, token: row.remainQuota + row.usedQuota } };
  }

  it('a user with quota for exactly k, seen as rich: 40 concurrent calls, exactly k are served, no drift', async () => {
    const k = 5;
    const { caller, initial } = await staleRichCaller(k * CALL_QUOTA);
    f.up.reset();
    // The provider answers after the reserves have been decided, so a refused call is cancelled in flight.
    f.up.script({ delayMs: 2000 });
    const results = await Promise.all(Array.from({ length: 40 }, () => call(caller.key)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(k);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.every((r) => r.status === 403 && JSON.parse(r.body).error.code === 'insufficient_user_quota')).toBe(true);
    // Every call that reached the provider and was refused had been cancelled by the gateway. (After the
    // first refusal the user reserves first, so later calls may never reach it.)
    const upstream = f.up.requests.length;
    expect(upstream).toBeGreaterThanOrEqual(k);
    await waitFor(
      async () => (f.up.requests.filter((r) => r.aborted).length === upstream - k ? true : undefined),
      'the refused calls cancelled',
    );
    await f.logCount({ userId: caller.userId }, 1 + k);
    await expectNoDrift(probe, caller, initial);
    expect(await f.quota(caller.userId)).toBe(0);
  });

  it.skipIf(kind === 'sqlite')(
    'while the reserves wait for a row lock, the upstream calls are made but nothing reaches the clients; then k are served and the refused get a bare 403',
    async () => {
      const k = 3;
      const n = 10;
      const { caller, initial } = await staleRichCaller(k * CALL_QUOTA);
      f.up.reset();
      // Another connection holds the user's row: every reserve waits for it (SQLite has no row locks).
      const locker = await openSqlProbe(f.gw.db);
      try {
        await locker.query('BEGIN');
        await locker.query(`SELECT quota FROM users WHERE id = ${caller.userId} FOR UPDATE`);
        let heard = 0;
        const calls = Array.from({ length: n }, () => call(caller.key, { stream: true }, () => heard++));
        // The provider got every call (and answered it at once) while no reserve could commit ...
        await waitFor(async () => (f.up.requests.length === n ? true : undefined), `${n} upstream calls`);
        // ... and the gateway holds those answers: give a gateway that did not the time to write them.
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(heard).toBe(0);
        await locker.query('COMMIT');
        const results = await Promise.all(calls);
        const served = results.filter((r) => r.status === 200);
        expect(served).toHaveLength(k);
        expect(served.every((r) => r.type?.includes('text/event-stream') && r.body.includes('[DONE]'))).toBe(true);
        // A refused call's answer is the refusal alone: its status line is the first byte the client got.
        for (const r of results.filter((r) => r.status !== 200)) {
          expect(r.status).toBe(403);
          expect(r.type).toContain('application/json');
          expect(JSON.parse(r.body).error.code).toBe('insufficient_user_quota');
        }
      } finally {
        await locker.close();
      }
      await f.logCount({ userId: caller.userId }, 1 + k);
      await expectNoDrift(probe, caller, initial);
      expect(await f.quota(caller.userId)).toBe(0);
    },
  );
});
