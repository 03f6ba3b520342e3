import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServerBuilt } from '../support/built-server.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../support/databases.js';
import { killChild, moneySuiteEnv } from '../support/billed-caller.js';
import { startGatewayChild, type GatewayChild } from '../support/gateway-child.js';
import { balancesOf, openSqlProbe, reservationsCleared, type SqlProbe } from '../support/sql-probe.js';
import { waitFor } from './relay-fixture.js';

const SECRET = 'mj-crash-secret';
const IN_FLIGHT = 60;
const USER_QUOTA = 10_000_000;
const TOKEN_QUOTA = 5_000_000;

/**
 * A Midjourney proxy that accepts an imagine at once, except prompts saying "hang", which it never
 * answers: those submits are in flight (charged, no task row yet) when the gateway is killed.
 */
async function startProxy(): Promise<{ url: string; submits: () => number; close(): Promise<void> }> {
  let submits = 0;
  let counter = 0;
  const waiting: ServerResponse[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    res.setHeader('content-type', 'application/json');
    if (req.method === 'POST' && req.url === '/mj/submit/imagine') {
      submits++;
      if (body.prompt === 'hang') {
        waiting.push(res);
        return;
      }
      res.end(JSON.stringify({ code: 1, description: 'Submit success', result: `${Date.now()}${++counter}` }));
      return;
    }
    // The poller's list-by-condition: nothing to move along.
    res.end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    submits: () => submits,
    close: () => {
      for (const res of waiting) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Threat: `kill -9` between a task's pre-charge and its task row (issue 22 item 2 applied to tasks). The
 * charge is a durable reservation settled in the same transaction as the row, so after a restart every
 * submit is either a task with its consume log row (written by the recovery when the kill lost it) or
 * refunded: initial = final balance + Σ logged charges, for the user and for the token.
 */
describe.each(testDatabases())('task submits survive kill -9 with %s', (kind) => {
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let db: TestDatabase;
  let probe: SqlProbe;
  let gw: GatewayChild | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureServerBuilt();
    proxy = await startProxy();
    db = await createTestDatabase(kind);
    env = moneySuiteEnv(db, 'gwtaskcrash', { TASK_POLL_INTERVAL: '3600' });
    probe = await openSqlProbe(db);
  }, 120_000);
  afterAll(async () => {
    await killChild(gw);
    await probe?.close();
    await proxy?.close();
    await db?.drop();
  });

  it('restarts with every task charge settled with its row or refunded, and 0 drift', async () => {
    gw = await startGatewayChild(env);
    const root = await gw.setupRoot();
    const channel = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 2, name: 'mj-crash', key: SECRET, models: 'mj_imagine', group: 'default', base_url: proxy.url },
    });
    expect(channel.body.success, channel.text).toBe(true);
    expect((await root.post('/api/token/', { name: 'task-crash', remain_quota: TOKEN_QUOTA, expired_time: -1 })).body.success).toBe(true);
    const tokenId = (await root.get('/api/token/search?keyword=task-crash')).body.data.items[0].id as number;
    const key = (await root.post(`/api/token/${tokenId}/key`)).body.data.key as string;
    const userId = root.userId!;
    await probe.query(`UPDATE users SET quota = ${USER_QUOTA}, used_quota = 0 WHERE id = ${userId}`);

    const url = gw.url;
    const submit = (prompt: string) =>
      fetch(`${url}/mj/submit/imagine`, {
        method: 'POST',
        headers: { 'mj-api-secret': `sk-${key.replace(/^sk-/, '')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt }),
      })
        .then(async (res) => ({ status: res.status, body: (await res.json()) as { code?: number } }))
        .catch(() => ({ status: 0, body: {} as { code?: number } }));
    const hangs = (i: number) => i % 2 === 1;
    const all = Array.from({ length: IN_FLIGHT }, (_, i) => submit(hangs(i) ? 'hang' : `a cat ${i}`));
    await waitFor(async () => (proxy.submits() >= IN_FLIGHT ? true : undefined), 'every submit at the proxy', 30_000);
    const answered = await Promise.all(all.filter((_, i) => !hangs(i)));
    expect(answered.every((a) => a.status === 200 && a.body.code === 1)).toBe(true);
    const [open] = await probe.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM quota_reservations WHERE charged = -1');
    expect(Number(open!.n)).toBe(IN_FLIGHT / 2);

    gw.child.kill('SIGKILL');
    await gw.exited;
    await Promise.all(all);

    gw = await startGatewayChild(env);
    await reservationsCleared(probe);

    const balances = await balancesOf(probe, userId, tokenId);
    const [charges] = await probe.query<{ total: number | string | null; n: number | string }>(
      `SELECT SUM(quota) AS total, COUNT(*) AS n FROM logs WHERE user_id = ${userId} AND token_id = ${tokenId} AND type = 2`,
    );
    const [tasks] = await probe.query<{ total: number | string | null; n: number | string }>(
      `SELECT SUM(quota) AS total, COUNT(*) AS n FROM midjourneys WHERE user_id = ${userId}`,
    );
    const charged = Number(charges!.total ?? 0);
    // Exactly the answered submits are tasks, each charged and logged once; the hanging ones were refunded.
    expect(Number(tasks!.n)).toBe(IN_FLIGHT / 2);
    expect(Number(charges!.n)).toBe(IN_FLIGHT / 2);
    expect(charged).toBe(Number(tasks!.total));
    expect(charged).toBeGreaterThan(0);
    expect(balances.userQuota + charged).toBe(USER_QUOTA);
    expect(balances.userUsed).toBe(charged);
    expect(balances.tokenRemain + charged).toBe(TOKEN_QUOTA);
    expect(balances.tokenUsed).toBe(charged);
  }, 300_000);
});
