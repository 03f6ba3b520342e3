import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserNotifyService } from '@gw/user';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { swapLetterCase } from '../support/letter-case.js';

interface Mail {
  to: string[];
  body: string;
}

/** A real SMTP server on loopback that keeps what it receives (quoted-printable decoded). */
async function startMailbox(): Promise<{ port: number; mails: Mail[]; auths: string[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const auths: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, cb) {
      auths.push(`${auth.username}:${auth.password}`);
      cb(null, { user: auth.username });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), body });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, auths, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function waitFor<T>(read: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.each(testDatabases())('accounts: registration, email and password reset on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;
  let turnstile: Server;
  let turnstileCalls: string[];
  let ipCounter = 1;
  /** A client from a distinct source address (the gateway trusts X-Forwarded-For from loopback here). */
  const fromNewIp = () => {
    const client = gw.client();
    client.headers = { 'X-Forwarded-For': `203.0.113.${ipCounter++}` };
    return client;
  };
  const codeFor = (to: string) =>
    waitFor(() => {
      const mail = [...mailbox.mails].reverse().find((m) => m.to.includes(to));
      return mail?.body.match(/<b>(\d{6})<\/b>/)?.[1];
    }, `code for ${to}`);

  beforeAll(async () => {
    mailbox = await startMailbox();
    turnstileCalls = [];
    turnstile = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        turnstileCalls.push(body);
        const params = new URLSearchParams(body);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ success: params.get('response') === 'good-token' && params.get('secret') === 'ts-secret' }));
      });
    });
    await new Promise<void>((resolve) => turnstile.listen(0, '127.0.0.1', resolve));
    const turnstileUrl = `http://127.0.0.1:${(turnstile.address() as AddressInfo).port}/siteverify`;
    gw = await startTestGateway(kind, { TRUSTED_PROXIES: '127.0.0.1', TURNSTILE_VERIFY_URL: turnstileUrl });
    root = await setupRoot(gw);
    for (const [key, value] of Object.entries({
      SMTPServer: '127.0.0.1',
      SMTPPort: String(mailbox.port),
      SMTPAccount: 'mailer@example.com',
      SMTPFrom: 'noreply@example.com',
      SMTPToken: 'smtp-pass',
      SMTPSSLEnabled: 'false',
      ServerAddress: 'https://gw.example.com',
      QuotaForNewUser: '1000',
    })) {
      expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    }
  });
  afterAll(async () => {
    await gw?.close();
    await mailbox?.close();
    await new Promise<void>((resolve) => turnstile?.close(() => resolve()));
  });

  it('validates registration with the spec messages', async () => {
    const reg = (body: object) => fromNewIp().post('/api/user/register', body);
    expect((await reg({ username: '', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'username and password cannot be empty',
    });
    expect((await reg({ username: 'newbie' })).body).toEqual({ success: false, message: 'username and password cannot be empty' });
    expect((await reg({ username: 'newbie', password: 'short' })).body).toEqual({
      success: false,
      message: 'password length must not be less than 8',
    });
    expect((await reg({ username: 'newbie', password: 'x'.repeat(21) })).body).toEqual({
      success: false,
      message: 'password length must not exceed 20',
    });
    expect((await reg({ username: 'newbie', password: 'password-123', password2: 'password-124' })).body).toEqual({
      success: false,
      message: 'the two passwords differ',
    });
    expect((await reg({ username: 'thirteen-char', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'username must be at most 12 characters',
    });
    expect((await reg({ username: 'newbie', password: 12345678 })).body.success).toBe(false);
  });

  it('registers without logging in, with the new-user quota; unknown fields are ignored', async () => {
    const client = fromNewIp();
    const res = await client.post('/api/user/register', {
      username: 'newbie',
      password: 'password-123',
      password2: 'password-123',
      email: 'claimed@example.com',
      role: 100,
      quota: 5,
      group: 'vip',
    });
    expect(res.body).toEqual({ success: true, message: '' });
    expect(res.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(false);
    expect((await client.get('/api/user/self')).status).toBe(401);
    const row = (await root.get('/api/user/search?keyword=newbie')).body.data.items[0];
    // Without email verification an email is not kept: an unproven address cannot be claimed.
    expect(row).toMatchObject({ username: 'newbie', role: 1, quota: 1000, group: 'default', status: 1, email: '' });
    expect((await fromNewIp().post('/api/user/register', { username: 'newbie', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'username already exists',
    });
  });

  it('never reuses a soft-deleted username', async () => {
    expect((await fromNewIp().post('/api/user/register', { username: 'ghost', password: 'password-123' })).body.success).toBe(true);
    const id = (await root.get('/api/user/search?keyword=ghost')).body.data.items[0].id;
    expect((await root.post('/api/user/manage', { id, action: 'delete' })).body.success).toBe(true);
    expect((await fromNewIp().post('/api/user/register', { username: 'ghost', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'username already exists',
    });
  });

  it('credits inviter and invitee', async () => {
    await root.put('/api/option/', { key: 'QuotaForInviter', value: '300' });
    await root.put('/api/option/', { key: 'QuotaForInvitee', value: '70' });
    const code = (await root.get('/api/user/aff')).body.data;
    expect(
      (await fromNewIp().post('/api/user/register', { username: 'invited', password: 'password-123', aff_code: code })).body.success,
    ).toBe(true);
    const invited = (await root.get('/api/user/search?keyword=invited')).body.data.items[0];
    expect(invited).toMatchObject({ quota: 1070, inviter_id: root.userId });
    expect((await root.get('/api/user/self')).body.data).toMatchObject({ aff_quota: 300, aff_history_quota: 300, aff_count: 1 });
    expect(
      (await fromNewIp().post('/api/user/register', { username: 'badcode', password: 'password-123', aff_code: 'nope' })).body.success,
    ).toBe(true);
    expect((await root.get('/api/user/search?keyword=badcode')).body.data.items[0]).toMatchObject({ quota: 1000, inviter_id: 0 });
    // A code in another letter case is another code (MySQL's default collation would match it).
    const swapped = swapLetterCase(code);
    expect(
      (await fromNewIp().post('/api/user/register', { username: 'swapcode', password: 'password-123', aff_code: swapped })).body.success,
    ).toBe(true);
    expect((await root.get('/api/user/search?keyword=swapcode')).body.data.items[0]).toMatchObject({ quota: 1000, inviter_id: 0 });
  });

  it('honours the registration switches', async () => {
    await root.put('/api/option/', { key: 'PasswordRegisterEnabled', value: 'false' });
    expect((await fromNewIp().post('/api/user/register', { username: 'sw1', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'the administrator has turned off password registration; register with a third-party account',
    });
    await root.put('/api/option/', { key: 'PasswordRegisterEnabled', value: 'true' });
    await root.put('/api/option/', { key: 'RegisterEnabled', value: 'false' });
    expect((await fromNewIp().post('/api/user/register', { username: 'sw1', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'the administrator has turned off new user registration',
    });
    await root.put('/api/option/', { key: 'RegisterEnabled', value: 'true' });
  });

  it('requires a mailed code when email verification is on (SMTP round trip)', async () => {
    await root.put('/api/option/', { key: 'EmailVerificationEnabled', value: 'true' });
    const client = fromNewIp();
    expect((await client.post('/api/user/register', { username: 'mailer1', password: 'password-123' })).body).toEqual({
      success: false,
      message: 'email and verification code are required',
    });
    expect((await client.get('/api/verification?email=not-an-email')).body).toEqual({ success: false, message: 'invalid email address' });
    expect((await client.get('/api/verification?email=m1@example.com')).body).toEqual({ success: true, message: '' });
    const code = await codeFor('m1@example.com');
    expect(mailbox.auths).toContain('mailer@example.com:smtp-pass');
    const wrong = code === '000000' ? '111111' : '000000';
    expect(
      (
        await client.post('/api/user/register', {
          username: 'mailer1',
          password: 'password-123',
          email: 'm1@example.com',
          verification_code: wrong,
        })
      ).body,
    ).toEqual({
      success: false,
      message: 'verification code is wrong or has expired',
    });
    expect(
      (
        await client.post('/api/user/register', {
          username: 'mailer1',
          password: 'password-123',
          email: 'm1@example.com',
          verification_code: code,
        })
      ).body.success,
    ).toBe(true);
    expect((await root.get('/api/user/search?keyword=mailer1')).body.data.items[0].email).toBe('m1@example.com');
    // The code is single use, and the email is now taken.
    expect(
      (
        await client.post('/api/user/register', {
          username: 'mailer2',
          password: 'password-123',
          email: 'm1@example.com',
          verification_code: code,
        })
      ).body.success,
    ).toBe(false);
    expect((await fromNewIp().get('/api/verification?email=m1@example.com')).body).toEqual({
      success: false,
      message: 'the email is already in use',
    });
  });

  it('limits resends per email and per address', async () => {
    const client = fromNewIp();
    expect((await client.get('/api/verification?email=r1@example.com')).body.success).toBe(true);
    const again = await fromNewIp().get('/api/verification?email=r1@example.com');
    expect(again.status).toBe(429);
    expect(again.body).toEqual({ success: false, message: 'a code was sent recently, try again in 30 seconds' });
    expect((await client.get('/api/verification?email=r2@example.com')).body.success).toBe(true);
    const third = await client.get('/api/verification?email=r3@example.com');
    expect(third.status).toBe(429);
  });

  it('applies the email domain whitelist and alias rule', async () => {
    await root.put('/api/option/', { key: 'EmailDomainRestrictionEnabled', value: 'true' });
    await root.put('/api/option/', { key: 'EmailDomainWhitelist', value: 'example.com,good.org' });
    await root.put('/api/option/', { key: 'EmailAliasRestrictionEnabled', value: 'true' });
    expect((await fromNewIp().get('/api/verification?email=x@evil.net')).body).toEqual({
      success: false,
      message: 'the administrator has enabled an email domain whitelist and your email domain is not on it',
    });
    expect((await fromNewIp().get('/api/verification?email=a%2Bb@example.com')).body).toEqual({
      success: false,
      message: 'email aliases (a+b@) are not allowed',
    });
    expect(
      (
        await fromNewIp().post('/api/user/register', {
          username: 'alias1',
          password: 'password-123',
          email: 'a+b@good.org',
          verification_code: '123456',
        })
      ).body,
    ).toEqual({
      success: false,
      message: 'email aliases (a+b@) are not allowed',
    });
    expect((await fromNewIp().get('/api/verification?email=ok@good.org')).body.success).toBe(true);
    await root.put('/api/option/', { key: 'EmailDomainRestrictionEnabled', value: 'false' });
    await root.put('/api/option/', { key: 'EmailAliasRestrictionEnabled', value: 'false' });
    await root.put('/api/option/', { key: 'EmailVerificationEnabled', value: 'false' });
  });

  it('binds an email after a code check', async () => {
    const user = gw.client();
    expect((await user.login('newbie', 'password-123')).body.success).toBe(true);
    user.headers = { 'X-Forwarded-For': `203.0.113.${ipCounter++}` };
    expect((await user.post('/api/oauth/email/bind', { email: 'nb@example.com' })).body).toEqual({
      success: false,
      message: 'email and verification code are required',
    });
    expect((await user.get('/api/verification?email=nb@example.com')).body.success).toBe(true);
    const code = await codeFor('nb@example.com');
    expect(
      (await user.post('/api/oauth/email/bind', { email: 'nb@example.com', code: code === '999999' ? '888888' : '999999' })).body.success,
    ).toBe(false);
    expect((await gw.client().post('/api/oauth/email/bind', { email: 'nb@example.com', code })).status).toBe(401);
    expect((await user.post('/api/oauth/email/bind', { email: 'nb@example.com', code })).body).toEqual({ success: true, message: 'bind' });
    expect((await user.get('/api/user/self')).body.data.email).toBe('nb@example.com');
    // GET form, for new-api clients.
    expect((await user.get('/api/verification?email=nb2@example.com')).body.success).toBe(true);
    const code2 = await codeFor('nb2@example.com');
    expect((await user.get(`/api/oauth/email/bind?email=nb2@example.com&code=${code2}`)).body).toEqual({ success: true, message: 'bind' });
    expect((await user.get('/api/user/self')).body.data.email).toBe('nb2@example.com');
  });

  it('resets a password through the mailed link, ending sessions', async () => {
    const session = gw.client();
    expect((await session.login('newbie', 'password-123')).body.success).toBe(true);
    expect((await fromNewIp().get('/api/reset_password?email=unknown@example.com')).body).toEqual({ success: true, message: '' });
    expect((await fromNewIp().get('/api/reset_password?email=nb2@example.com')).body).toEqual({ success: true, message: '' });
    const link = await waitFor(() => {
      const mail = [...mailbox.mails].reverse().find((m) => m.to.includes('nb2@example.com') && m.body.includes('/user/reset'));
      return mail?.body.match(/https:\/\/gw\.example\.com\/user\/reset\?email=[^&"<\s]+&(?:amp;)?token=[A-Za-z0-9_-]+/)?.[0];
    }, 'reset link');
    const url = new URL(link.replace('&amp;', '&'));
    const email = url.searchParams.get('email')!;
    const token = url.searchParams.get('token')!;
    expect((await fromNewIp().post('/api/user/reset', { email, token: 'forged-token' })).body).toEqual({
      success: false,
      message: 'the reset link is invalid or has expired',
    });
    const ok = await fromNewIp().post('/api/user/reset', { email, token });
    expect(ok.body.success).toBe(true);
    expect(ok.body.data).toMatch(/^[A-Za-z0-9]{12}$/);
    expect((await session.get('/api/user/self')).status).toBe(401);
    expect((await gw.client().login('newbie', 'password-123')).body.success).toBe(false);
    expect((await gw.client().login('newbie', ok.body.data)).body.success).toBe(true);
    expect((await fromNewIp().post('/api/user/reset', { email, token })).body.success).toBe(false);
  });

  it('checks Turnstile on login, register, verification and reset when enabled', async () => {
    await root.put('/api/option/', { key: 'TurnstileSecretKey', value: 'ts-secret' });
    await root.put('/api/option/', { key: 'TurnstileCheckEnabled', value: 'true' });
    const c = fromNewIp();
    expect((await c.post('/api/user/login', { username: 'newbie', password: 'x-password' })).body).toEqual({
      success: false,
      message: 'Turnstile token is empty',
    });
    expect((await c.post('/api/user/login?turnstile=bad', { username: 'newbie', password: 'x-password' })).body).toEqual({
      success: false,
      message: 'Turnstile verification failed, refresh and try again',
    });
    expect((await c.post('/api/user/register?turnstile=bad', { username: 'ts1', password: 'password-123' })).body.success).toBe(false);
    expect((await c.get('/api/verification?email=t@example.com&turnstile=bad')).body.success).toBe(false);
    expect((await c.get('/api/reset_password?email=t@example.com')).body.success).toBe(false);
    expect((await c.post('/api/user/register?turnstile=good-token', { username: 'ts1', password: 'password-123' })).body).toEqual({
      success: true,
      message: '',
    });
    expect((await c.login('ts1', 'password-123')).body.success).toBe(false);
    expect((await c.post('/api/user/login?turnstile=good-token', { username: 'ts1', password: 'password-123' })).body.success).toBe(true);
    expect(turnstileCalls.some((b) => b.includes('remoteip=203.0.113.'))).toBe(true);
    await root.put('/api/option/', { key: 'TurnstileCheckEnabled', value: 'false' });
  });

  it('mails one quota warning when the balance falls below the user threshold (SMTP round trip, rate limited)', async () => {
    expect((await fromNewIp().post('/api/user/register', { username: 'warned', password: 'password-123' })).body.success).toBe(true);
    const user = gw.client();
    expect((await user.login('warned', 'password-123')).body.success).toBe(true);
    const setting = { notify_type: 'email', notification_email: 'warn@example.com', quota_warning_threshold: 5000 };
    expect((await user.put('/api/user/setting', setting)).body).toEqual({ success: true, message: '' });
    const notify = gw.gateway.app.get(UserNotifyService);
    expect(await notify.check(user.userId!, 6000)).toBe(false);
    expect(await notify.check(user.userId!, 100)).toBe(true);
    const mail = await waitFor(() => mailbox.mails.find((m) => m.to.includes('warn@example.com')), 'quota warning');
    expect(mail.body).toContain('Your remaining quota is $0.000200, below the warning threshold $0.010000');
    // Rate limited: a second drop right after sends nothing.
    expect(await notify.check(user.userId!, 50)).toBe(false);
    expect(mailbox.mails.filter((m) => m.to.includes('warn@example.com'))).toHaveLength(1);
  });
});

describe.each(testDatabases())('accounts: GENERATE_DEFAULT_TOKEN on %s', (kind) => {
  let gw: TestGateway;
  let off: TestGateway;

  beforeAll(async () => {
    [gw, off] = await Promise.all([startTestGateway(kind, { GENERATE_DEFAULT_TOKEN: 'true' }), startTestGateway(kind)]);
    await Promise.all([setupRoot(gw), setupRoot(off)]);
  });
  afterAll(async () => {
    await Promise.all([gw?.close(), off?.close()]);
  });

  const tokensAfterSignUp = async (gateway: TestGateway, username: string) => {
    const client = gateway.client();
    expect((await client.post('/api/user/register', { username, password: 'password-123' })).body.success).toBe(true);
    expect((await client.login(username, 'password-123')).body.success).toBe(true);
    const list = await client.get('/api/token/?p=1&page_size=10');
    expect(list.body.success).toBe(true);
    return { client, items: list.body.data.items as Array<Record<string, unknown>> };
  };

  it("gives a password sign-up new-api's first token: unlimited, never expiring, usable on the relay", async () => {
    const { client, items } = await tokensAfterSignUp(gw, 'firsttok');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      name: 'firsttok的初始令牌',
      status: 1,
      expired_time: -1,
      unlimited_quota: true,
      remain_quota: 500000,
      model_limits_enabled: false,
    });
    const key = (await client.post(`/api/token/${items[0]!.id}/key`, {})).body.data.key as string;
    const models = await fetch(`${gw.url}/v1/models`, { headers: { Authorization: `Bearer ${key}` } });
    expect(models.status).toBe(200);
  });

  it('makes none by default', async () => {
    expect((await tokensAfterSignUp(off, 'notoken')).items).toEqual([]);
  });
});
