import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const WRONG = 'username or password is wrong, or the user has been banned';
const LOCKED = 'too many failed attempts, try later';

/** Login brute-force limits (threat A2): per account whatever the source address, and per address across accounts. */
describe.each(testDatabases())('accounts: login brute-force limits on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;

  /** A client whose source address is `ip` (the gateway trusts X-Forwarded-For from loopback in this suite). */
  const from = (ip: string) => {
    const client = gw.client();
    client.headers = { 'X-Forwarded-For': ip };
    return client;
  };

  beforeAll(async () => {
    gw = await startTestGateway(kind, { TRUSTED_PROXIES: '127.0.0.1' });
    root = await setupRoot(gw);
    for (const username of ['victim', 'bystander']) {
      expect((await root.post('/api/user/', { username, password: 'password-123' })).body.success).toBe(true);
    }
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('accepts at most 100 failed attempts per account from many addresses, even in parallel', async () => {
    // 105 guesses at once from 105 addresses: each address is far below its own limits.
    const answers = await Promise.all(Array.from({ length: 105 }, (_, i) => from(`198.51.100.${i}`).login('victim', `guess-${i}-pass`)));
    const messages = answers.map((r) => r.body.message as string);
    expect(messages.filter((m) => m === WRONG)).toHaveLength(100);
    expect(messages.filter((m) => m === LOCKED)).toHaveLength(5);
    expect(answers.filter((r) => r.body.message === LOCKED).every((r) => r.status === 429)).toBe(true);
    // The right password from a fresh address is refused too: the account's budget is spent.
    const right = await from('198.51.101.1').login('victim', 'password-123');
    expect(right.status).toBe(429);
    expect(right.body).toEqual({ success: false, message: LOCKED });
    // Other accounts are unaffected.
    expect((await from('198.51.9.9').login('bystander', 'password-123')).body.success).toBe(true);
    // A hundred bcrypt checks take a while on a busy machine.
  }, 120_000);

  it('limits one address across many account names, without touching other addresses', async () => {
    const ip = '203.0.113.77';
    for (let i = 0; i < 50; i++) {
      expect((await from(ip).login(`nobody${i}`, 'wrong-password')).body.message).toBe(WRONG);
    }
    const blocked = await from(ip).login('bystander', 'password-123');
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ success: false, message: LOCKED });
    expect((await from('203.0.113.78').login('bystander', 'password-123')).body.success).toBe(true);
  }, 90_000);
});
