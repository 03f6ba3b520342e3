import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * threats.md A2/A7/M8/V2.4.1: the critical limit (new-api's CriticalRateLimit, per address) covers every
 * route that guesses a secret, spends money or mails someone, and a spoofed X-Forwarded-For from an
 * untrusted peer does not reset it. Own gateway: the limit is lowered to 3 (setup, root login, alice login).
 */
describe.each(testDatabases())('critical route rate limit on %s', (kind) => {
  let gw: TestGateway;
  let alice: ApiClient;

  beforeAll(async () => {
    gw = await startTestGateway(kind, { CRITICAL_RATE_LIMIT: '3' });
    const root = await setupRoot(gw);
    expect((await root.post('/api/user/', { username: 'alice', password: 'password-123' })).body.success).toBe(true);
    alice = gw.client();
    expect((await alice.login('alice', 'password-123')).body.success).toBe(true);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers 429 on every critical route once the address used its allowance, whatever X-Forwarded-For says', async () => {
    const anon = gw.client();
    const calls: [string, () => Promise<{ status: number }>][] = [
      ['redeem', () => alice.post('/api/user/topup', { key: 'a'.repeat(32) })],
      ['pay', () => alice.post('/api/user/pay', { amount: 10, payment_method: 'alipay' })],
      ['reveal key', () => alice.post('/api/token/1/key')],
      ['reveal keys', () => alice.post('/api/token/batch/keys', { ids: [1] })],
      ['email bind', () => alice.post('/api/oauth/email/bind', { email: 'a@example.com', code: '123456' })],
      ['login', () => anon.post('/api/user/login', { username: 'alice', password: 'wrong-password' })],
      ['register', () => anon.post('/api/user/register', { username: 'eve', password: 'password-123' })],
      ['verification', () => anon.get('/api/verification?email=a@example.com')],
      ['reset mail', () => anon.get('/api/reset_password?email=a@example.com')],
      ['reset', () => anon.post('/api/user/reset', { email: 'a@example.com', token: 'x' })],
      ['oauth state', () => anon.get('/api/oauth/state')],
      ['token usage', () => anon.get('/api/usage/token', { Authorization: 'Bearer sk-unknown' })],
      ['token log', () => anon.get('/api/log/token?key=sk-unknown')],
      ['setup', () => anon.post('/api/setup', { username: 'x', password: 'password-123', confirmPassword: 'password-123' })],
    ];
    for (const [what, call] of calls) expect((await call()).status, what).toBe(429);
    const spoofed = await anon.post(
      '/api/user/login',
      { username: 'alice', password: 'password-123' },
      { 'X-Forwarded-For': '203.0.113.7' },
    );
    expect(spoofed.status).toBe(429);
    // Ordinary reads of the logged-in user are not critical and still work.
    expect((await alice.get('/api/user/self')).body.data.username).toBe('alice');
  });
});
