import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import { ApiClient } from '../support/api-client.js';
import { ensureServerBuilt } from '../support/built-server.js';
import { createTestDatabase, type TestDatabase, type TestDbKind } from '../support/databases.js';
import { startGatewayChild, type GatewayChild } from '../support/gateway-child.js';
import { openSqlReader, type SqlReader } from '../support/sql-reader.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { waitFor } from './relay-fixture.js';

/**
 * Issue #19's "done when": two gateway processes (optionally each a WORKERS=2 cluster) share one database and
 * one Redis. Redis sits behind a TCP proxy the test cuts and restores, so the shared Redis server that other
 * suites use is never disturbed. Money is checked in the database itself, not through a gateway.
 */

/** ModelPrice 0.001 × QuotaPerUnit 500 000: every call reserves and is charged exactly this. */
const PRICE_QUOTA = 500;
/** One model per phase, so each phase's log rows are told apart. */
const MODELS = {
  warm: 'ledger-warm',
  steady: 'ledger-steady',
  redisCut: 'ledger-redis-cut',
  probe: 'ledger-probe',
  limited: 'ledger-limited',
};
const LOAD = 500;
/** Quota for exactly this many calls in each load phase. */
const K = 120;

interface Case {
  kind: TestDbKind;
  workers: number;
}

const redisUrl = process.env.TEST_REDIS_URL;
const cases: Case[] = [];
for (const workers of [1, 2]) {
  cases.push({ kind: 'sqlite', workers });
  if (process.env.TEST_MYSQL_URL) cases.push({ kind: 'mysql', workers });
  if (process.env.TEST_POSTGRES_URL) cases.push({ kind: 'postgres', workers });
}

interface CallResult {
  status: number;
  body: string;
  via: number;
}

describe.runIf(redisUrl).each(cases)('two instances on one $kind and one Redis, WORKERS=$workers', ({ kind, workers }) => {
  let db: TestDatabase;
  let up: FakeUpstream;
  let redis: TcpProxy;
  let a: GatewayChild;
  let b: GatewayChild;
  let sql: SqlReader;
  let rootA: ApiClient;
  let rootB: ApiClient;
  let user: { id: number; key: string };
  const channels = { main: 0, backup: 0 };

  beforeAll(async () => {
    ensureServerBuilt();
    db = await createTestDatabase(kind);
    up = await startFakeUpstream();
    const target = new URL(redisUrl!);
    redis = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const env = {
      ...db.env,
      REDIS_CONN_STRING: `redis://127.0.0.1:${redis.port}`,
      REDIS_KEY_PREFIX: `gwledger:${kind}:${workers}:${Date.now()}:`,
      // Convergence must come from Redis (or the cluster's IPC), not from a reload.
      SYNC_FREQUENCY: '3600',
      WORKERS: String(workers),
    };
    if (kind === 'sqlite') {
      // SQLite has no migration lock between processes: the second instance starts on a migrated file.
      a = await startGatewayChild(env);
      b = await startGatewayChild(env);
    } else {
      // Started together: the migration lock must let exactly one of them migrate.
      [a, b] = await Promise.all([startGatewayChild(env), startGatewayChild(env)]);
    }
    sql = await openSqlReader(db);
    rootA = await a.setupRoot();
    rootB = await loginOn(b, 'root', 'root-pass-123');

    const prices = Object.fromEntries(Object.values(MODELS).map((model) => [model, 0.001]));
    expectOk(await rootA.put('/api/option/', { key: 'ModelPrice', value: JSON.stringify(prices) }));
    channels.main = await createChannel(rootA, up.url, 'main', 10);
    channels.backup = await createChannel(rootA, up.url, 'backup', 0);
    expectOk(await rootA.post('/api/user/', { username: 'spender', password: 'password-123' }));
    // Logged in on B, its token made on B: sessions and tokens are shared.
    const spender = await loginOn(b, 'spender', 'password-123');
    expectOk(await spender.post('/api/token/', { name: 'spend', remain_quota: 0, unlimited_quota: true, expired_time: -1 }));
    const tokenId = (await spender.get('/api/token/search?keyword=spend')).body.data.items[0].id as number;
    user = { id: spender.userId!, key: (await spender.post(`/api/token/${tokenId}/key`)).body.data.key as string };
    // Both relays warmed before any load phase: under a busy CI one cold instance could lag so far behind
    // the other that the warm one had taken the whole quota before the cold one reserved anything.
    await setBalance(100 * PRICE_QUOTA);
    const warm = await Promise.all(Array.from({ length: 20 }, (_, i) => call(MODELS.warm, i)));
    expect(warm.map((r) => r.status)).toEqual(warm.map(() => 200));
  }, 180_000);

  afterAll(async () => {
    await sql?.close();
    await Promise.all([a, b].filter(Boolean).map(stopChild));
    await redis?.close();
    await up?.close();
    await db?.drop();
  });

  function call(model: string, via: number): Promise<CallResult> {
    const gw = via % 2 ? b : a;
    return fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(60_000),
    }).then(async (res) => ({ status: res.status, body: await res.text(), via }));
  }

  /** Sets the balance on A and waits until B's cached copy has it too (the relay checks it before reserving). */
  async function setBalance(quota: number): Promise<void> {
    expectOk(await rootA.put('/api/user/', { id: user.id, quota }));
    await everywhere(b, async () => (await rootB.get(`/api/user/${user.id}`)).body.data?.quota === quota, 'the new balance on B');
  }

  async function balance(): Promise<{ quota: number; used: number; requests: number }> {
    const [row] = await sql.rows<{ quota: number; used_quota: number; request_count: number }>(
      'SELECT quota, used_quota, request_count FROM users WHERE id = ?',
      [user.id],
    );
    return { quota: Number(row!.quota), used: Number(row!.used_quota), requests: Number(row!.request_count) };
  }

  async function charges(model: string): Promise<{ count: number; sum: number }> {
    const [row] = await sql.rows<{ n: number; total: number }>(
      'SELECT COUNT(*) AS n, COALESCE(SUM(quota), 0) AS total FROM logs WHERE user_id = ? AND model_name = ? AND type = 2',
      [user.id, model],
    );
    return { count: Number(row!.n), sum: Number(row!.total) };
  }

  /**
   * The money invariants once every served call has been settled and logged: each success has exactly one
   * consume row, the balance is the initial one minus the logged charges (0 drift), never below zero.
   */
  async function expectNoDrift(model: string, initial: number, usedBefore: number, succeeded: number): Promise<void> {
    await waitFor(
      async () =>
        (await charges(model)).count >= succeeded && (await balance()).quota === initial - (await charges(model)).sum ? true : undefined,
      `the logs and the balance of ${model} to agree`,
      15_000,
    ).catch(() => undefined); // the assertions below say what differs
    const logged = await charges(model);
    const after = await balance();
    expect(logged.count, 'one consume log per successful call').toBe(succeeded);
    expect(logged.sum, 'each call charged its price').toBe(succeeded * PRICE_QUOTA);
    expect(after.quota, 'balance = initial − Σ logged charges').toBe(initial - logged.sum);
    expect(after.used - usedBefore, 'used_quota grew by Σ logged charges').toBe(logged.sum);
    expect(after.quota).toBeGreaterThanOrEqual(0);
  }

  function expectOnlyQuotaRefusals(results: CallResult[]): void {
    const others = results.filter((r) => r.status !== 200 && !(r.status === 403 && r.body.includes('insufficient_user_quota')));
    expect(others.slice(0, 3), 'every refusal is a clear insufficient-quota 403').toEqual([]);
  }

  it(`${LOAD} concurrent calls over both instances, quota for exactly ${K}: at most ${K} succeed, 0 drift`, async () => {
    const initial = K * PRICE_QUOTA;
    await setBalance(initial);
    const { used } = await balance();
    const results = await Promise.all(Array.from({ length: LOAD }, (_, i) => call(MODELS.steady, i)));
    const ok = results.filter((r) => r.status === 200);
    expectOnlyQuotaRefusals(results);
    expect(ok.length).toBeLessThanOrEqual(K);
    // The price is fixed (reserve = charge): nothing may be refused while quota is left.
    expect(ok.length).toBe(K);
    // On a server database the two instances' reserves interleave row by row, so both serve. On SQLite one
    // process may hold the file's write lock for the whole burst (its group commit takes every reserve it has
    // in a few transactions) and the other then finds the quota gone: its calls are the clear refusals
    // checked above, which is all the guarantee asks.
    if (kind !== 'sqlite') expect(new Set(ok.map((r) => r.via % 2)).size, 'both instances served').toBe(2);
    await expectNoDrift(MODELS.steady, initial, used, ok.length);
  });

  it('the same with Redis cut in the middle of the load and restored', async () => {
    const initial = K * PRICE_QUOTA;
    await setBalance(initial);
    const { used } = await balance();
    let done = 0;
    const load = Promise.all(
      Array.from({ length: LOAD }, (_, i) =>
        call(MODELS.redisCut, i).then((r) => {
          done++;
          return r;
        }),
      ),
    );
    await waitFor(async () => (done >= LOAD / 10 ? true : undefined), 'a tenth of the calls', 30_000);
    await redis.down();
    const cutAt = done;
    await waitFor(async () => (done >= Math.min(LOAD, cutAt + LOAD / 5) ? true : undefined), 'calls while Redis is away', 30_000);
    await redis.up();
    const results = await load;
    expect(cutAt, 'Redis was cut while calls were still running').toBeLessThan(LOAD);
    const ok = results.filter((r) => r.status === 200);
    expectOnlyQuotaRefusals(results);
    expect(ok.length).toBeLessThanOrEqual(K);
    expect(ok.length).toBeGreaterThan(0);
    await expectNoDrift(MODELS.redisCut, initial, used, ok.length);
    // Once Redis is back, changes reach the other instance through it again (reconnect + resubscribe).
    const name = `after-cut-${Date.now()}`;
    expectOk(await rootA.put('/api/option/', { key: 'SystemName', value: name }));
    await everywhere(b, async () => (await fresh(b.url).get('/api/status')).body.data.system_name === name, 'the option on B', 5000);
  });

  it('a change made while Redis is away reaches the other instance within 2 s of Redis coming back', async () => {
    await redis.down();
    // Both have noticed (so A's publish cannot wait in a queue and go out on reconnect).
    await everywhere(a, async () => (await redisCheck(a)) !== 'ok', 'A to lose Redis', 10_000);
    await everywhere(b, async () => (await redisCheck(b)) !== 'ok', 'B to lose Redis', 10_000);
    const name = `during-cut-${Date.now()}`;
    expectOk(await rootA.put('/api/option/', { key: 'SystemName', value: name }));
    await redis.up();
    // SYNC_FREQUENCY is an hour: only the reload on resubscribing can bring it. ioredis retries every ≤ 2 s.
    await everywhere(b, async () => (await fresh(b.url).get('/api/status')).body.data.system_name === name, 'the option on B', 4000);
  });

  it('a channel disabled on one instance is not used by the other within 2 s', async () => {
    await setBalance(1_000_000);
    const usedKey = async () => {
      const before = up.requests.length;
      const res = await call(MODELS.probe, 1);
      expect(res.status, res.body).toBe(200);
      return String(up.requests.slice(before).at(-1)?.headers.authorization);
    };
    // The main channel serves first (the previous case's changes may still be reaching this instance).
    await waitFor(async () => ((await usedKey()) === 'Bearer sk-up-main' ? true : undefined), 'the main channel to serve', 5000);
    const disabled = await rootA.put('/api/channel/', { id: channels.main, status: 2 });
    expectOk(disabled);
    const since = Date.now();
    // Every worker of B must have dropped it: several calls in a row, all on the backup channel.
    await waitFor(
      async () => {
        for (let i = 0; i < 6; i++) if ((await usedKey()) !== 'Bearer sk-up-backup') return undefined;
        return true;
      },
      'B to stop using the disabled channel',
      2000,
    );
    expect(Date.now() - since).toBeLessThanOrEqual(2000);
    const before = up.requests.length;
    await Promise.all(Array.from({ length: 20 }, () => call(MODELS.probe, 1)));
    expect(up.requests.slice(before).filter((r) => r.headers.authorization === 'Bearer sk-up-main')).toEqual([]);
    expectOk(await rootA.put('/api/channel/', { id: channels.main, status: 1 }));
  });

  it('counts the per-user model request limit across instances exactly', async () => {
    const limit = 30;
    await setBalance(1_000_000);
    for (const [key, value] of [
      ['ModelRequestRateLimitCount', String(limit)],
      ['ModelRequestRateLimitSuccessCount', '100000'],
      ['ModelRequestRateLimitDurationMinutes', '1'],
      ['ModelRequestRateLimitEnabled', 'true'],
    ]) {
      expectOk(await rootA.put('/api/option/', { key, value }));
    }
    await everywhere(
      b,
      async () => {
        const options = (await rootB.get('/api/option/')).body.data as { key: string; value: string }[];
        return options.find((o) => o.key === 'ModelRequestRateLimitEnabled')?.value === 'true';
      },
      'the limit on B',
    );
    try {
      const results = await Promise.all(Array.from({ length: limit * 3 }, (_, i) => call(MODELS.limited, i)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(limit);
      expect(results.filter((r) => r.status === 429)).toHaveLength(limit * 2);
    } finally {
      expectOk(await rootA.put('/api/option/', { key: 'ModelRequestRateLimitEnabled', value: 'false' }));
    }
  });
});

async function createChannel(root: ApiClient, upstreamUrl: string, name: string, priority: number): Promise<number> {
  const res = await root.post('/api/channel/', {
    mode: 'single',
    channel: {
      type: 1,
      name,
      key: `sk-up-${name}`,
      models: Object.values(MODELS).join(','),
      group: 'default',
      base_url: upstreamUrl,
      priority,
    },
  });
  expectOk(res);
  return res.body.data.ids[0] as number;
}

async function redisCheck(gw: GatewayChild): Promise<string | undefined> {
  const res = await fetch(`${gw.url}/readyz`, { headers: { connection: 'close' } });
  return ((await res.json()) as { checks?: { redis?: string } }).checks?.redis;
}

/** A client whose every call opens a new connection, which the cluster primary deals to the next worker. */
function fresh(url: string): ApiClient {
  const client = new ApiClient(url);
  client.headers.connection = 'close';
  return client;
}

async function loginOn(gw: GatewayChild, username: string, password: string): Promise<ApiClient> {
  const client = fresh(gw.url);
  expectOk(await client.login(username, password));
  return client;
}

/**
 * Waits until `check` holds on an instance, several times in a row: with WORKERS=2 each call may reach
 * either worker, and every one of them must have heard of the change.
 */
async function everywhere(gw: GatewayChild, check: () => Promise<boolean>, what: string, timeoutMs = 2000): Promise<void> {
  await waitFor(
    async () => {
      for (let i = 0; i < 6; i++) if (!(await check())) return undefined;
      return true;
    },
    `${what} (${gw.url})`,
    timeoutMs,
  );
}

async function stopChild(gw: GatewayChild): Promise<void> {
  gw.child.kill('SIGTERM');
  const { code } = await gw.exited;
  expect(code, gw.output().slice(-2000)).toBe(0);
}

function expectOk(res: { body: any; text: string }): void {
  expect(res.body?.success, res.text).toBe(true);
}

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

describe('WORKERS=2: the primary replaces a crashed worker and drains them all on SIGTERM', () => {
  it('replaces a worker that crashes, and keeps serving', async () => {
    ensureServerBuilt();
    const gw = await startGatewayChild({ WORKERS: '2' });
    try {
      const pids = () => new Set([...gw.output().matchAll(/worker (\d+) listening/g)].map((m) => Number(m[1])));
      const [victim] = [...pids()];
      // With a worker on every core, each collects its garbage on its own thread (worker-exec-argv.ts).
      const workerArgv = readFileSync(`/proc/${victim}/cmdline`, 'utf8').split('\0');
      expect(workerArgv.includes('--single-threaded-gc')).toBe(availableParallelism() <= 2);
      process.kill(victim!, 'SIGKILL');
      await waitFor(async () => (pids().size === 3 ? true : undefined), 'a new worker to listen', 30_000);
      expect(gw.output()).toContain(`worker ${victim} died (SIGKILL): starting a new one`);
      for (let i = 0; i < 4; i++) expect((await fresh(gw.url).get('/api/status')).status).toBe(200);
      gw.child.kill('SIGTERM');
      expect(await gw.exited, gw.output().slice(-2000)).toEqual({ code: 0, signal: null });
    } finally {
      if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
    }
  }, 120_000);

  const STREAMS = 20;
  const REPLY = Array.from({ length: 15 }, (_, i) => `w${i}`).join(' ');

  it(`finishes ${STREAMS} streams (one connection each, dealt round-robin to the workers), flushes each worker's batched counters and logs, exits 0`, async () => {
    ensureServerBuilt();
    const up = await startFakeUpstream();
    up.script({ path: '/v1/chat/completions', reply: REPLY, chunkDelayMs: 100 });
    // Counters and log rows are only written by each worker's shutdown flush: the batch timers are far away.
    const gw = await startGatewayChild({ WORKERS: '2', BATCH_UPDATE_ENABLED: 'true', BATCH_UPDATE_INTERVAL: '600' });
    try {
      const root = await gw.setupRoot();
      expectOk(await root.put('/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODELS.steady]: 0.001 }) }));
      await createChannel(root, up.url, 'drain', 0);
      expectOk(await root.post('/api/token/', { name: 'drain', remain_quota: 0, unlimited_quota: true, expired_time: -1 }));
      const tokenId = (await root.get('/api/token/search?keyword=drain')).body.data.items[0].id as number;
      const key = (await root.post(`/api/token/${tokenId}/key`)).body.data.key as string;
      const before = (await root.get('/api/user/self')).body.data as { quota: number; used_quota: number };

      let started = 0;
      let allStarted!: () => void;
      const streaming = new Promise<void>((resolve) => (allStarted = resolve));
      // One connection per stream, so the primary hands them to both workers.
      const runs = Array.from({ length: STREAMS }, async () => {
        const res = await fetch(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ model: MODELS.steady, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
          signal: AbortSignal.timeout(60_000),
        });
        const reader = res.body!.getReader();
        let text = '';
        let first = true;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (first && ++started === STREAMS) allStarted();
          first = false;
          text += Buffer.from(value).toString();
        }
        return { status: res.status, text };
      });
      await streaming;
      gw.child.kill('SIGTERM');
      const results = await Promise.all(runs);
      expect(await gw.exited, gw.output().slice(-3000)).toEqual({ code: 0, signal: null });
      for (const r of results) {
        expect(r.status).toBe(200);
        expect(r.text).toContain('[DONE]');
        expect(r.text).toContain('w14');
      }
      const workerPids = new Set([...gw.output().matchAll(/worker (\d+) listening/g)].map((m) => m[1]));
      expect(workerPids.size).toBe(2);

      const sql = await openSqlReader({ kind: 'sqlite', env: { SQLITE_PATH: gw.sqlitePath }, drop: async () => undefined });
      try {
        const [logs] = await sql.rows<{ n: number; total: number }>(
          'SELECT COUNT(*) AS n, COALESCE(SUM(quota), 0) AS total FROM logs WHERE type = 2 AND model_name = ?',
          [MODELS.steady],
        );
        const [user] = await sql.rows<{ quota: number; used_quota: number }>('SELECT quota, used_quota FROM users WHERE id = ?', [
          root.userId,
        ]);
        const [channel] = await sql.rows<{ used_quota: number }>('SELECT used_quota FROM channels');
        expect(Number(logs!.n)).toBe(STREAMS);
        expect(Number(logs!.total)).toBe(STREAMS * PRICE_QUOTA);
        expect(before.quota - Number(user!.quota)).toBe(STREAMS * PRICE_QUOTA);
        expect(Number(user!.used_quota) - before.used_quota).toBe(STREAMS * PRICE_QUOTA);
        expect(Number(channel!.used_quota)).toBe(STREAMS * PRICE_QUOTA);
      } finally {
        await sql.close();
      }
    } finally {
      if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
      await up.close();
    }
  }, 180_000);
});
