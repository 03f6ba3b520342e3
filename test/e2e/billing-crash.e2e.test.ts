import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import { ensureServerBuilt } from '../support/built-server.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../support/databases.js';
import { startGatewayChild, type GatewayChild } from '../support/gateway-child.js';
import { FREE_SLOT } from '@gw/token';
import { expectNoDrift, killChild, moneySuiteEnv, setUpBilledCaller } from '../support/billed-caller.js';
import { openSqlProbe, reservationsCleared, type SqlProbe } from '../support/sql-probe.js';
import { waitFor } from './relay-fixture.js';

const MODEL = 'crash-model';
const IN_FLIGHT = 200;
const USER_QUOTA = 5_000_000;
const TOKEN_QUOTA = 3_000_000;
/** 200 words at 100 ms: a stream still running when the gateway is killed. */
const LONG_REPLY = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');

type Kind = 'fast' | 'hang' | 'stream';
const kindOf = (i: number): Kind => (['fast', 'hang', 'stream'] as const)[i % 3]!;

/**
 * Threat: `kill -9` with requests in flight must lose no charge and leave no reservation behind. 200
 * requests are in flight (answered and settled ones whose log rows may still be buffered, upstream calls
 * that hang, streams half-way); the process is killed, restarted on the same database, and once the
 * recovery has run: initial = final balance + Σ logged charges, for the user and for the token.
 */
describe.each(testDatabases())('billing survives kill -9 with %s', (kind) => {
  let up: FakeUpstream;
  let db: TestDatabase;
  let probe: SqlProbe;
  let gw: GatewayChild | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureServerBuilt();
    up = await startFakeUpstream();
    up.script({ when: (_req, body) => body?.messages?.[0]?.content === 'hang', hang: true });
    up.script({ when: (_req, body) => body?.stream === true, chunkDelayMs: 100, reply: LONG_REPLY });
    db = await createTestDatabase(kind);
    env = moneySuiteEnv(db, 'gwcrash');
    probe = await openSqlProbe(db);
  }, 120_000);
  afterAll(async () => {
    await killChild(gw);
    await probe?.close();
    await up?.close();
    await db?.drop();
  });

  it('restarts with every reservation settled or refunded exactly once and 0 drift', async () => {
    gw = await startGatewayChild(env);
    const root = await gw.setupRoot();
    const caller = await setUpBilledCaller(root, probe, {
      model: MODEL,
      name: 'crash',
      upstreamUrl: up.url,
      userQuota: USER_QUOTA,
      tokenQuota: TOKEN_QUOTA,
    });
    const { key, userId } = caller;

    const url = gw.url;
    const fastDone: Promise<unknown>[] = [];
    const all = Array.from({ length: IN_FLIGHT }, async (_, i) => {
      const k = kindOf(i);
      try {
        const res = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer sk-${key.replace(/^sk-/, '')}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, stream: k === 'stream', messages: [{ role: 'user', content: k }] }),
        });
        await res.text();
        return res.status;
      } catch {
        return 0;
      }
    });
    for (let i = 0; i < IN_FLIGHT; i++) if (kindOf(i) === 'fast') fastDone.push(all[i]!);
    // Every request reached the upstream, and the fast ones were answered (settled; their log rows may be buffered).
    await waitFor(async () => (up.requests.length >= IN_FLIGHT ? true : undefined), 'all requests upstream', 30_000);
    const fastStatuses = await Promise.all(fastDone);
    expect(fastStatuses.every((s) => s === 200)).toBe(true);
    const open = await probe.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM quota_reservations WHERE charged <> ${FREE_SLOT}`);
    expect(Number(open[0]!.n)).toBeGreaterThanOrEqual((IN_FLIGHT * 2) / 3 - 1);

    gw.child.kill('SIGKILL');
    await gw.exited;
    await Promise.all(all);

    gw = await startGatewayChild(env);
    await reservationsCleared(probe);

    const logged = await expectNoDrift(probe, caller, { user: USER_QUOTA, token: TOKEN_QUOTA });
    const [refunds] = await probe.query<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM logs WHERE user_id = ${userId} AND type = 4 AND content LIKE '%refunded%'`,
    );
    // Answered requests settle just after their answer: those the kill caught before the settle are refunded.
    expect(logged + Number(refunds!.n)).toBeGreaterThanOrEqual(IN_FLIGHT - 1);
    expect(Number(refunds!.n)).toBeGreaterThan(0);
  }, 180_000);
});
