import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases } from '../support/databases.js';
import { CHAT, startRelayFixture, type RelayFixture } from './relay-fixture.js';

const PER_CALL = 'credit-per-call';
/** ModelPrice 0.001 × QuotaPerUnit 500000 = 500 quota per call. */
const CALL_QUOTA = 500;
/** Usage the fake upstream reports: (10 + 1000 × completion ratio 3) × model ratio 2. */
const USAGE = { prompt_tokens: 10, completion_tokens: 1000 };
const ACTUAL = (10 + 1000 * 3) * 2;

/**
 * Issue 22.3: no free credit under concurrency (docs/billing.md). Every answered request is charged its
 * full price; a balance may go below zero only by what exceeded the reservations, and an account or token
 * in debt is refused until topped up. Per-call models reserve their exact price, so exactly k succeed.
 */
describe.each(testDatabases())('billing never serves free credit on %s', (kind) => {
  let f: RelayFixture;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelPrice', { [PER_CALL]: 0.001 });
    await f.setOption('PreConsumedQuota', '0');
    await f.channel({ models: [CHAT, PER_CALL].join(',') });
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  const chat = (key: string, body: Record<string, unknown> = {}) =>
    fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], ...body }),
    }).then(async (res) => ({ status: res.status, id: res.headers.get('x-oneapi-request-id')!, body: await res.text() }));

  it('per-token model, PreConsumedQuota 0, 62 concurrent requests: each charged in full, the user in debt by at most the excess, then refused', async () => {
    f.up.script({ usage: USAGE });
    const token = await f.token({ unlimited_quota: true });
    await f.setQuota(f.user.id, 2300);
    const before = await f.userRow(f.user.id);
    const logsBefore = (await f.logs({ userId: f.user.id })).length;
    const results = await Promise.all(Array.from({ length: 62 }, () => chat(token.key)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 403 && r.body.includes('insufficient_user_quota'))).toBe(true);
    const logs = (await f.logCount({ userId: f.user.id }, logsBefore + ok.length)).slice(logsBefore);
    expect(logs).toHaveLength(ok.length);
    expect(logs.every((l) => l.quota === ACTUAL)).toBe(true);
    const charged = logs.reduce((sum, l) => sum + l.quota, 0);
    const after = await f.userRow(f.user.id);
    expect(after.quota).toBe(2300 - charged);
    expect(after.usedQuota).toBe(before.usedQuota + charged);
    // The debt is what the answers cost beyond the reservations, never more; each short settle is logged.
    expect(after.quota).toBeLessThan(0);
    expect(logs.some((l) => String(l.content).includes('balance short by'))).toBe(true);
    const refused = await chat(token.key);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('insufficient_user_quota');
    // A top-up that clears the debt serves again.
    await f.setQuota(f.user.id, 10_000_000);
    expect((await chat(token.key)).status).toBe(200);
  });

  it('per-token model with max_tokens: the reservation covers the worst case, so the balance never goes below zero', async () => {
    f.up.script({ usage: USAGE });
    const token = await f.token({ unlimited_quota: true });
    await f.setQuota(f.user.id, 4 * ACTUAL + 100);
    const results = await Promise.all(Array.from({ length: 40 }, () => chat(token.key, { max_tokens: 1000 })));
    const ok = results.filter((r) => r.status === 200).length;
    // Reservation: (prompt + 1000 × 3) × 2 ≥ the real price, so no more can pass than the balance covers.
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBeLessThanOrEqual(4);
    const logs = await Promise.all(results.filter((r) => r.status === 200).map((r) => f.settled(r.id)));
    expect(await f.quota(f.user.id)).toBe(4 * ACTUAL + 100 - logs.reduce((sum, l) => sum + l.quota, 0));
    expect(await f.quota(f.user.id)).toBeGreaterThanOrEqual(0);
    await f.setQuota(f.user.id, 10_000_000);
  });

  it('per-token model on a limited token: the token goes into debt by at most the excess, and is refused afterwards', async () => {
    f.up.script({ usage: USAGE });
    await f.setQuota(f.user.id, 10_000_000);
    const token = await f.token({ remain_quota: 2300 });
    const results = await Promise.all(Array.from({ length: 40 }, () => chat(token.key)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    const logs = await Promise.all(ok.map((r) => f.settled(r.id)));
    const charged = logs.reduce((sum, l) => sum + l.quota, 0);
    expect(logs.every((l) => l.quota === ACTUAL)).toBe(true);
    const row = await f.tokenRow(token.id);
    expect(row.remainQuota).toBe(2300 - charged);
    expect(row.usedQuota).toBe(charged);
    expect(row.remainQuota).toBeLessThan(0);
    const refused = await chat(token.key);
    expect(refused.status).not.toBe(200);
    expect(refused.status).toBeLessThan(500);
  });

  it('per-call model on a limited token, 100 concurrent calls: exactly k succeed and the token ends at 0', async () => {
    const k = 6;
    await f.setQuota(f.user.id, 10_000_000);
    const token = await f.token({ remain_quota: k * CALL_QUOTA });
    const results = await Promise.all(Array.from({ length: 100 }, () => chat(token.key, { model: PER_CALL })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(k);
    // Refused by the reserve (403), or once marked exhausted by the token check (401).
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 403 || r.status === 401)).toBe(true);
    const logs = await Promise.all(ok.map((r) => f.settled(r.id)));
    expect(logs.reduce((sum, l) => sum + l.quota, 0)).toBe(k * CALL_QUOTA);
    expect(await f.tokenRow(token.id)).toEqual({ remainQuota: 0, usedQuota: k * CALL_QUOTA });
  });

  it('a user at exactly 0 is refused even where the estimate rounds to 0', async () => {
    await f.setOption('ModelRatio', { [CHAT]: 0.0001 });
    try {
      const token = await f.token({ unlimited_quota: true });
      await f.setQuota(f.user.id, 0);
      const refused = await chat(token.key);
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('insufficient_user_quota');
    } finally {
      await f.setOption('ModelRatio', { [CHAT]: 2, 'relay-embed': 0.5, 'relay-instruct': 1 });
      await f.setQuota(f.user.id, 10_000_000);
    }
  });
});
