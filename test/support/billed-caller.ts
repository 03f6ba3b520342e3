import { expect } from 'vitest';
import type { ApiClient } from './api-client.js';
import type { TestDatabase } from './databases.js';
import type { GatewayChild } from './gateway-child.js';
import { balancesOf, type SqlProbe } from './sql-probe.js';

export interface BilledCaller {
  key: string;
  userId: number;
  tokenId: number;
}

/**
 * The money suites' set-up: a model priced at ratio 1, an OpenAI channel to the fake upstream, and root's own
 * token with `tokenQuota`, root's balance set to `userQuota` from outside.
 */
export async function setUpBilledCaller(
  root: ApiClient,
  probe: SqlProbe,
  s: { model: string; name: string; upstreamUrl: string; userQuota: number; tokenQuota: number },
): Promise<BilledCaller> {
  for (const key of ['ModelRatio', 'CompletionRatio']) {
    expect((await root.put('/api/option/', { key, value: JSON.stringify({ [s.model]: 1 }) })).body.success).toBe(true);
  }
  const channel = await root.post('/api/channel/', {
    mode: 'single',
    channel: { type: 1, name: s.name, key: `sk-up-${s.name}`, models: s.model, group: 'default', base_url: s.upstreamUrl },
  });
  expect(channel.body.success, channel.text).toBe(true);
  expect((await root.post('/api/token/', { name: s.name, remain_quota: s.tokenQuota, expired_time: -1 })).body.success).toBe(true);
  const tokenId = (await root.get(`/api/token/search?keyword=${s.name}`)).body.data.items[0].id as number;
  const key = (await root.post(`/api/token/${tokenId}/key`)).body.data.key as string;
  const userId = root.userId!;
  await probe.query(`UPDATE users SET quota = ${s.userQuota}, used_quota = 0 WHERE id = ${userId}`);
  return { key, userId, tokenId };
}

/**
 * The money invariant, read from the database: initial = final balance + Σ logged charges for the user and
 * for the token, used_quota equal to the charges, and each request's charge logged once. Returns the
 * number of consume rows.
 */
export async function expectNoDrift(probe: SqlProbe, caller: BilledCaller, initial: { user: number; token: number }): Promise<number> {
  const [dupes] = await probe.query<{ n: number | string }>(
    'SELECT COUNT(*) AS n FROM (SELECT request_id FROM logs WHERE type = 2 GROUP BY request_id HAVING COUNT(*) > 1) d',
  );
  expect(Number(dupes!.n)).toBe(0);
  const balances = await balancesOf(probe, caller.userId, caller.tokenId);
  const [userLogs] = await probe.query<{ total: number | string | null; n: number | string }>(
    `SELECT SUM(quota) AS total, COUNT(*) AS n FROM logs WHERE user_id = ${caller.userId} AND type = 2`,
  );
  const [tokenLogs] = await probe.query<{ total: number | string | null }>(
    `SELECT SUM(quota) AS total FROM logs WHERE token_id = ${caller.tokenId} AND type = 2`,
  );
  const userCharged = Number(userLogs!.total ?? 0);
  const tokenCharged = Number(tokenLogs!.total ?? 0);
  expect(balances.userQuota + userCharged).toBe(initial.user);
  expect(balances.userUsed).toBe(userCharged);
  expect(balances.tokenRemain + tokenCharged).toBe(initial.token);
  expect(balances.tokenUsed).toBe(tokenCharged);
  return Number(userLogs!.n);
}

/** A child gateway killed at the end of a suite (it may have been killed and restarted by the test). */
export async function killChild(gw: GatewayChild | undefined): Promise<void> {
  if (gw && gw.child.exitCode === null) {
    gw.child.kill('SIGKILL');
    await gw.exited;
  }
}

/**
 * A money suite's child gateway environment: its database, Redis on the server databases when TEST_REDIS_URL is
 * set (under a key prefix of its own), and a slow periodic sync (the suites wait for conditions, not timers).
 */
export function moneySuiteEnv(db: TestDatabase, prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  const redis: Record<string, string> =
    db.kind !== 'sqlite' && process.env.TEST_REDIS_URL ? { REDIS_CONN_STRING: process.env.TEST_REDIS_URL } : {};
  return { ...db.env, ...redis, REDIS_KEY_PREFIX: `${prefix}:${Date.now()}:`, SYNC_FREQUENCY: '60', ...extra };
}
