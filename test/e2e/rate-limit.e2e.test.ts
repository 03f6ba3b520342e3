import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptionService } from '@gw/option';
import { testDatabases } from '../support/databases.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { CHAT, startRelayFixture, type RelayFixture } from './relay-fixture.js';

/** One chat call with a raw fetch: the status and body as the client sees them. */
async function chat(baseUrl: string, key: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.status, body: await res.json() };
}

async function statuses(baseUrl: string, key: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await chat(baseUrl, key)).status);
  return out;
}

describe.each(testDatabases())('model request rate limit on %s', (kind) => {
  let f: RelayFixture;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.channel();
  });

  afterAll(async () => {
    await f?.close();
  });

  async function limits(values: Record<string, unknown>): Promise<void> {
    for (const [key, value] of Object.entries({
      ModelRequestRateLimitEnabled: true,
      ModelRequestRateLimitDurationMinutes: 1,
      ModelRequestRateLimitGroup: {},
      ...values,
    })) {
      await f.setOption(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
    }
  }

  /** A fresh user (so earlier tests' counts do not matter) with a token. */
  async function freshKey(): Promise<string> {
    const username = `rl${randomBytes(3).toString('hex')}`;
    expect((await f.root.post('/api/user/', { username, password: 'password-123' })).body.success).toBe(true);
    const client = f.gw.client();
    const login = await client.login(username, 'password-123');
    await f.setQuota(login.body.data.id, 10_000_000);
    return (await f.token({}, client)).key;
  }

  it('refuses the request over the total count with a 429 OpenAI error, failed requests included', async () => {
    await limits({ ModelRequestRateLimitCount: 3, ModelRequestRateLimitSuccessCount: 1000 });
    const key = await freshKey();
    f.up.script({ path: '/v1/chat/completions', status: 500, times: 1 });
    expect(await statuses(f.gw.url, key, 3)).toEqual([500, 200, 200]);
    const refused = await chat(f.gw.url, key);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      message: expect.stringContaining('at most 3 requests in 1 minutes'),
      code: 'rate_limit_exceeded',
    });
    // Another user has a count of their own.
    expect((await chat(f.gw.url, await freshKey())).status).toBe(200);
  });

  it('counts only successful requests against the success count', async () => {
    await limits({ ModelRequestRateLimitCount: 0, ModelRequestRateLimitSuccessCount: 2 });
    const key = await freshKey();
    f.up.script({ path: '/v1/chat/completions', status: 500, times: 2 });
    expect(await statuses(f.gw.url, key, 5)).toEqual([500, 500, 200, 200, 429]);
  });

  it('applies the per-group override [total, success] and stops when disabled', async () => {
    await limits({
      ModelRequestRateLimitCount: 100,
      ModelRequestRateLimitSuccessCount: 100,
      ModelRequestRateLimitGroup: { default: [1, 100] },
    });
    const key = await freshKey();
    expect(await statuses(f.gw.url, key, 2)).toEqual([200, 429]);
    await f.setOption('ModelRequestRateLimitEnabled', 'false');
    expect(await statuses(f.gw.url, key, 2)).toEqual([200, 200]);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.skipIf(!redisUrl).each(testDatabases())('model request rate limit across two instances sharing Redis on %s', (kind) => {
  const env = { REDIS_CONN_STRING: redisUrl ?? '', REDIS_KEY_PREFIX: `gwtest:rl:${randomBytes(4).toString('hex')}:` };
  let f: RelayFixture;
  let second: TestGateway;
  let key: string;

  beforeAll(async () => {
    f = await startRelayFixture(kind, env);
    await f.channel();
    await f.setOption('ModelRequestRateLimitCount', '4');
    await f.setOption('ModelRequestRateLimitEnabled', 'true');
    key = (await f.token()).key;
    // Started after every write, so it boots with the same channels, options and token as the first.
    second = await startTestGateway(kind, env, f.gw.db);
  });

  afterAll(async () => {
    await second?.close();
    await f?.close();
  });

  it('counts the requests of both instances in one window', async () => {
    expect(second.gateway.app.get(OptionService).get('ModelRequestRateLimitCount')).toBe(4);
    expect(await statuses(f.gw.url, key, 2)).toEqual([200, 200]);
    expect(await statuses(second.url, key, 2)).toEqual([200, 200]);
    // Each instance alone has seen only 2 of 4: only a shared count refuses these.
    expect((await chat(f.gw.url, key)).status).toBe(429);
    expect((await chat(second.url, key)).status).toBe(429);
  });
});
