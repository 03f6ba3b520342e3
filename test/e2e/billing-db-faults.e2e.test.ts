import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import { ensureServerBuilt } from '../support/built-server.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../support/databases.js';
import { startGatewayChild, type GatewayChild } from '../support/gateway-child.js';
import { expectNoDrift, killChild, moneySuiteEnv, setUpBilledCaller } from '../support/billed-caller.js';
import { openSqlProbe, reservationsCleared, type SqlProbe } from '../support/sql-probe.js';

const MODEL = 'fault-model';
const REQUESTS = 300;
const CONCURRENCY = 30;
const KILL_ROUNDS = 6;
const USER_QUOTA = 5_000_000;
const TOKEN_QUOTA = 3_000_000;

/** Every connection the gateway holds to its database is cut, from the server's side (the probe's own excepted). */
async function cutGatewayConnections(probe: SqlProbe, kind: TestDatabase['kind']): Promise<number> {
  if (kind === 'postgres') {
    const rows = await probe.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.length;
  }
  const ids = await probe.query<{ id: number | string }>(
    'SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID()',
  );
  for (const { id } of ids) await probe.query(`KILL ${Number(id)}`).catch(() => undefined);
  return ids.length;
}

/**
 * Fault: the database drops the gateway's connections while requests are reserved, settled and logged (a
 * failover, a restart, an idle-connection reaper). Every request is answered, and once the gateway has
 * caught up, without a restart: no reservation is left open, and initial = final balance + Σ logged charges,
 * for the user and for the token, with each charge logged once.
 */
describe.each(testDatabases().filter((kind) => kind !== 'sqlite'))('billing when %s drops the connections under load', (kind) => {
  let up: FakeUpstream;
  let db: TestDatabase;
  let probe: SqlProbe;
  let gw: GatewayChild | undefined;

  beforeAll(async () => {
    ensureServerBuilt();
    up = await startFakeUpstream();
    up.script({ when: () => true, delayMs: 5 });
    db = await createTestDatabase(kind);
    gw = await startGatewayChild(moneySuiteEnv(db, 'gwfault'));
    probe = await openSqlProbe(db);
  }, 120_000);
  afterAll(async () => {
    await killChild(gw);
    await probe?.close();
    await up?.close();
    await db?.drop();
  });

  it('answers every request and, without a restart, leaves no reservation open and 0 drift', async () => {
    const root = await gw!.setupRoot();
    const caller = await setUpBilledCaller(root, probe, {
      model: MODEL,
      name: 'fault',
      upstreamUrl: up.url,
      userQuota: USER_QUOTA,
      tokenQuota: TOKEN_QUOTA,
    });
    const { key } = caller;

    const chat = async (): Promise<number> => {
      // 0: no answer at all (the gateway died or dropped the connection).
      const res = await fetch(`${gw!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] }),
      }).catch(() => undefined);
      if (!res) return 0;
      const body = await res.json();
      // An error is the gateway's JSON error, never a hang or a crash.
      if (res.status !== 200) expect(body.error?.message, JSON.stringify(body)).toBeTruthy();
      return res.status;
    };
    const statuses: number[] = [];
    const waiting: { count: number; resolve: () => void }[] = [];
    const answered = (count: number) =>
      new Promise<void>((resolve) => (statuses.length >= count ? resolve() : waiting.push({ count, resolve })));
    let next = 0;
    const load = Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < REQUESTS) {
          next++;
          statuses.push(await chat());
          for (const w of waiting) if (statuses.length >= w.count) w.resolve();
        }
      }),
    );
    let cut = 0;
    // The cuts land while the load runs: a round after every 20 answers.
    for (let round = 1; round <= KILL_ROUNDS; round++) {
      await answered(20 * round);
      cut += await cutGatewayConnections(probe, kind);
    }
    await load;
    expect(cut).toBeGreaterThan(0);
    expect(gw!.child.exitCode, gw!.output().slice(-12000)).toBeNull();
    expect(statuses).toHaveLength(REQUESTS);
    expect(statuses.filter((s) => s === 0)).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(REQUESTS / 2);
    // A request the cut connections failed is told to try again (503), not handed a 500.
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    // Still serving once the connections are back.
    expect(await chat()).toBe(200);

    // Settled reservations are removed once their log rows are written; none may stay open.
    await reservationsCleared(probe, 90_000);
    expect(await expectNoDrift(probe, caller, { user: USER_QUOTA, token: TOKEN_QUOTA })).toBeGreaterThan(0);
  }, 240_000);
});
