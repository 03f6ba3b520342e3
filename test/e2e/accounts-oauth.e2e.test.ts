import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { startOidcTestProvider } from '../support/oidc-provider.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const SERVER_ADDRESS = 'https://gw.example.com';
const BOT_TOKEN = '123456:telegram-bot-token';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(body));
  });
}

/** Fake GitHub, Linux DO and WeChat-server endpoints on loopback. */
async function startFakeProviders() {
  const seen: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    seen.push({ path: req.url ?? '', headers: req.headers, body });
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (value: unknown, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === '/github/token') {
      const { code, client_secret } = JSON.parse(body || '{}');
      if (client_secret !== 'gh-secret' || !String(code).startsWith('gh-')) return json({ error: 'bad_verification_code' });
      return json({ access_token: `tok-${code}` });
    }
    if (url.pathname === '/github/user') {
      const token = String(req.headers.authorization ?? '').replace('Bearer tok-gh-', '');
      return json({ id: 1000 + Number(token.replace(/\D/g, '') || 0), login: `octo${token}`, name: `Octo ${token}` });
    }
    if (url.pathname === '/linuxdo/token') {
      const params = new URLSearchParams(body);
      if (req.headers.authorization !== `Basic ${Buffer.from('ld-id:ld-secret').toString('base64')}`)
        return json({ error: 'invalid_client' }, 401);
      return json({ access_token: `ld-${params.get('code')}` });
    }
    if (url.pathname === '/linuxdo/user') {
      const code = String(req.headers.authorization ?? '').replace('Bearer ld-', '');
      return json({
        id: code === 'low' ? 7 : 77,
        username: `ld_${code}`,
        name: 'LD',
        active: true,
        silenced: false,
        trust_level: code === 'low' ? 0 : 2,
      });
    }
    if (url.pathname === '/api/wechat/user') {
      if (req.headers.authorization !== 'wx-token') return json({ success: false, message: 'unauthorized' });
      const code = url.searchParams.get('code');
      return json(
        code?.startsWith('wx') ? { success: true, message: '', data: `openid-${code}` } : { success: false, message: 'invalid code' },
      );
    }
    if (url.pathname === '/redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/' });
      return res.end();
    }
    json({ error: 'not found' }, 404);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A real OpenID Provider (oidc-provider) on loopback, with a scripted login, for the gateway's OIDC client. */
const startOidcProvider = () =>
  startOidcTestProvider({ clientId: 'gw-client', clientSecret: 'gw-client-secret', redirectUri: `${SERVER_ADDRESS}/oauth/oidc` });

function telegramQuery(data: Record<string, string>, token = BOT_TOKEN): string {
  const check = Object.keys(data)
    .sort()
    .map((k) => `${k}=${data[k]}`)
    .join('\n');
  const hash = createHmac('sha256', createHash('sha256').update(token).digest()).update(check).digest('hex');
  return new URLSearchParams({ ...data, hash }).toString();
}

describe.each(testDatabases())('accounts: third-party login and binding on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let fake: Awaited<ReturnType<typeof startFakeProviders>>;
  let oidc: Awaited<ReturnType<typeof startOidcProvider>>;

  /** Asks the gateway for a state; the client keeps the state cookie next to its session cookie. */
  async function stateFor(client: ApiClient, aff = ''): Promise<string> {
    const res = await client.get(`/api/oauth/state${aff ? `?aff=${aff}` : ''}`);
    expect(res.body.success).toBe(true);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('oauth_state='))!;
    expect(cookie).toMatch(/HttpOnly/);
    (client as ApiClient & { stateCookie?: string }).stateCookie = cookie.split(';')[0];
    return res.body.data;
  }
  function withState(client: ApiClient, path: string) {
    const extra = (client as ApiClient & { stateCookie?: string }).stateCookie;
    const saved = client.cookie;
    client.cookie = [saved, extra].filter(Boolean).join('; ');
    return client.get(path).finally(() => {
      if (client.cookie === [saved, extra].filter(Boolean).join('; ')) client.cookie = saved;
    });
  }

  beforeAll(async () => {
    fake = await startFakeProviders();
    oidc = await startOidcProvider();
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    for (const [key, value] of Object.entries({
      ServerAddress: SERVER_ADDRESS,
      AllowPrivateOutboundUrls: 'true',
      GitHubOAuthEnabled: 'true',
      GitHubClientId: 'gh-id',
      GitHubClientSecret: 'gh-secret',
      GitHubTokenUrl: `${fake.base}/github/token`,
      GitHubUserUrl: `${fake.base}/github/user`,
      LinuxDOOAuthEnabled: 'true',
      LinuxDOClientId: 'ld-id',
      LinuxDOClientSecret: 'ld-secret',
      LinuxDOMinimumTrustLevel: '1',
      LinuxDOTokenUrl: `${fake.base}/linuxdo/token`,
      LinuxDOUserUrl: `${fake.base}/linuxdo/user`,
      WeChatAuthEnabled: 'true',
      WeChatServerAddress: fake.base,
      WeChatServerToken: 'wx-token',
      TelegramOAuthEnabled: 'true',
      TelegramBotToken: BOT_TOKEN,
      TelegramBotName: 'gw_login_bot',
      WeChatAccountQRCodeImageURL: 'https://gw.example.com/qr.png',
      TurnstileSiteKey: 'ts-site-key',
      TurnstileSecretKey: 'ts-secret-key',
      'oidc.enabled': 'true',
      'oidc.well_known': `${oidc.issuer}/.well-known/openid-configuration`,
      'oidc.client_id': 'gw-client',
      'oidc.client_secret': 'gw-client-secret',
      QuotaForNewUser: '42',
    })) {
      expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    }
  });
  afterAll(async () => {
    await gw?.close();
    await oidc?.close();
    await new Promise<void>((resolve) => fake?.server.close(() => resolve()));
  });

  it('signs up and signs in with OIDC against a real provider (well-known discovery)', async () => {
    const browser = gw.client();
    const state = await stateFor(browser);
    expect(state).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const code = await oidc.authorize('oidc-alice', state);
    const res = await withState(browser, `/api/oauth/oidc?code=${code}&state=${state}`);
    expect(res.body).toMatchObject({ success: true, data: { role: 1, status: 1, display_name: 'OIDC oidc-alice' } });
    browser.userId = res.body.data.id;
    const self = (await browser.get('/api/user/self')).body.data;
    expect(self).toMatchObject({ oidc_id: 'oidc-alice', quota: 42 });
    // Second sign-in: the same account, no new user.
    const again = gw.client();
    const state2 = await stateFor(again);
    const code2 = await oidc.authorize('oidc-alice', state2);
    expect((await withState(again, `/api/oauth/oidc?code=${code2}&state=${state2}`)).body.data.id).toBe(self.id);
    // A used code is refused by the provider.
    const third = gw.client();
    const state3 = await stateFor(third);
    expect((await withState(third, `/api/oauth/oidc?code=${code2}&state=${state3}`)).body.success).toBe(false);
  });

  it('checks the state: missing, unknown, foreign browser, reused', async () => {
    const browser = gw.client();
    expect((await browser.get('/api/oauth/github?code=gh-1')).body).toEqual({ success: false, message: 'state is empty or invalid' });
    expect((await withState(browser, '/api/oauth/github?code=gh-1&state=made-up')).body).toEqual({
      success: false,
      message: 'state is empty or invalid',
    });
    const state = await stateFor(browser);
    // Another browser (no state cookie) cannot use it.
    expect((await gw.client().get(`/api/oauth/github?code=gh-1&state=${state}`)).body).toEqual({
      success: false,
      message: 'state is empty or invalid',
    });
    const ok = await withState(browser, `/api/oauth/github?code=gh-1&state=${state}`);
    expect(ok.body).toMatchObject({ success: true, data: { display_name: 'Octo 1' } });
    expect(ok.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(true);
    const replay = gw.client();
    (replay as any).stateCookie = (browser as any).stateCookie;
    expect((await withState(replay, `/api/oauth/github?code=gh-1&state=${state}`)).body).toEqual({
      success: false,
      message: 'state is empty or invalid',
    });
  });

  it('logs in with GitHub, credits an inviter from the state, and binds when logged in', async () => {
    const affCode = (await root.get('/api/user/aff')).body.data;
    await root.put('/api/option/', { key: 'QuotaForInviter', value: '10' });
    const browser = gw.client();
    const state = await stateFor(browser, affCode);
    const res = await withState(browser, `/api/oauth/github?code=gh-2&state=${state}`);
    expect(res.body.success).toBe(true);
    browser.userId = res.body.data.id;
    expect((await browser.get('/api/user/self')).body.data).toMatchObject({ github_id: '1002', inviter_id: root.userId });
    expect((await root.get('/api/user/self')).body.data.aff_count).toBe(1);
    // Bind: a logged-in user attaches a GitHub account; one already bound elsewhere is refused.
    expect((await root.post('/api/user/', { username: 'binder', password: 'password-123' })).body.success).toBe(true);
    const binder = gw.client();
    await binder.login('binder', 'password-123');
    const s1 = await stateFor(binder);
    expect((await withState(binder, `/api/oauth/github?code=gh-2&state=${s1}`)).body).toEqual({
      success: false,
      message: 'this GitHub account is already bound to another user',
    });
    const s2 = await stateFor(binder);
    expect((await withState(binder, `/api/oauth/github?code=gh-3&state=${s2}`)).body).toEqual({ success: true, message: 'bind' });
    expect((await binder.get('/api/user/self')).body.data.github_id).toBe('1003');
    expect(fake.seen.some((r) => r.path === '/github/token' && JSON.parse(r.body).client_id === 'gh-id')).toBe(true);
  });

  it('refuses third-party login to a banned or deleted user, and never re-creates a deleted one', async () => {
    const login = async () => {
      const browser = gw.client();
      const state = await stateFor(browser);
      return withState(browser, `/api/oauth/github?code=gh-4&state=${state}`);
    };
    const first = await login();
    expect(first.body.success).toBe(true);
    const id = first.body.data.id as number;
    expect((await root.post('/api/user/manage', { id, action: 'disable' })).body.success).toBe(true);
    expect((await login()).body).toEqual({ success: false, message: 'the user has been banned' });
    expect((await root.post('/api/user/manage', { id, action: 'delete' })).body.success).toBe(true);
    const afterDelete = await login();
    expect(afterDelete.body).toEqual({ success: false, message: 'the user has been deleted' });
    expect(afterDelete.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(false);
  });

  it('logs in with Linux DO, enforcing the trust level', async () => {
    const browser = gw.client();
    const state = await stateFor(browser);
    const res = await withState(browser, `/api/oauth/linuxdo?code=good&state=${state}`);
    expect(res.body).toMatchObject({ success: true, data: { role: 1 } });
    browser.userId = res.body.data.id;
    expect((await browser.get('/api/user/self')).body.data.linux_do_id).toBe('77');
    const tokenCall = fake.seen.find((r) => r.path === '/linuxdo/token')!;
    expect(new URLSearchParams(tokenCall.body).get('redirect_uri')).toBe(`${SERVER_ADDRESS}/oauth/linuxdo`);
    const low = gw.client();
    const s2 = await stateFor(low);
    expect((await withState(low, `/api/oauth/linuxdo?code=low&state=${s2}`)).body).toEqual({
      success: false,
      message: 'the Linux DO trust level is too low',
    });
  });

  it('logs in and binds with the WeChat server; a code works once', async () => {
    const res = await gw.client().get('/api/oauth/wechat?code=wx1');
    expect(res.body).toMatchObject({ success: true, data: { role: 1 } });
    expect(fake.seen.find((r) => r.path.startsWith('/api/wechat/user'))!.headers.authorization).toBe('wx-token');
    expect((await gw.client().get('/api/oauth/wechat?code=wx1')).body).toEqual({
      success: false,
      message: 'the verification code is invalid or has expired',
    });
    expect((await gw.client().get('/api/oauth/wechat?code=bad')).body).toEqual({
      success: false,
      message: 'WeChat login failed: invalid code',
    });
    expect((await gw.client().get('/api/oauth/wechat')).body).toEqual({ success: false, message: 'the verification code is empty' });
    expect((await gw.client().get('/api/oauth/wechat/bind?code=wx2')).status).toBe(401);
    expect((await root.get('/api/oauth/wechat/bind')).body).toEqual({ success: false, message: 'the verification code is empty' });
    expect((await root.get('/api/oauth/wechat/bind?code=wx2')).body).toEqual({ success: true, message: 'bind' });
    expect((await root.get('/api/user/self')).body.data.wechat_id).toBe('openid-wx2');
    expect((await root.post('/api/oauth/wechat/bind', { code: 'wx3' })).body).toEqual({ success: true, message: 'bind' });
  });

  it('verifies the Telegram login hash and freshness', async () => {
    const now = Math.floor(Date.now() / 1000);
    const data = { id: '555', first_name: 'Tele', username: 'tele', auth_date: String(now - 30) };
    const ok = await gw.client().get(`/api/oauth/telegram/login?${telegramQuery(data)}`);
    expect(ok.body).toMatchObject({ success: true, data: { display_name: 'Tele' } });
    const forged = new URLSearchParams(telegramQuery(data));
    forged.set('hash', 'f'.repeat(64));
    expect((await gw.client().get(`/api/oauth/telegram/login?${forged}`)).body).toEqual({
      success: false,
      message: 'Telegram data is invalid or has expired',
    });
    const changed = new URLSearchParams(telegramQuery(data));
    changed.set('id', '556');
    expect((await gw.client().get(`/api/oauth/telegram/login?${changed}`)).body.success).toBe(false);
    const old = { ...data, auth_date: String(now - 86_401) };
    expect((await gw.client().get(`/api/oauth/telegram/login?${telegramQuery(old)}`)).body.success).toBe(false);
    expect((await gw.client().get(`/api/oauth/telegram/login?${telegramQuery(data, 'other-bot')}`)).body.success).toBe(false);
    // Bind with the session cookie: the widget navigated the browser here, so it is sent back to the personal page.
    const bind = await fetch(`${gw.url}/api/oauth/telegram/bind?${telegramQuery({ id: '777', first_name: 'R', auth_date: String(now) })}`, {
      headers: { cookie: root.cookie ?? '' },
      redirect: 'manual',
    });
    expect([bind.status, bind.headers.get('location')]).toEqual([302, '/personal']);
    expect((await root.get('/api/user/self')).body.data.telegram_id).toBe('777');
    expect((await gw.client().get(`/api/oauth/telegram/bind?${telegramQuery({ id: '778', auth_date: String(now) })}`)).status).toBe(401);
  });

  it('honours each switch', async () => {
    for (const [key, path, message] of [
      ['GitHubOAuthEnabled', '/api/oauth/github?code=gh-9&state=x', 'the administrator has not enabled GitHub login'],
      ['oidc.enabled', '/api/oauth/oidc?code=x&state=x', 'the administrator has not enabled OIDC login'],
      ['LinuxDOOAuthEnabled', '/api/oauth/linuxdo?code=x&state=x', 'the administrator has not enabled Linux DO login'],
      ['WeChatAuthEnabled', '/api/oauth/wechat?code=wx9', 'the administrator has not enabled WeChat login'],
      ['TelegramOAuthEnabled', '/api/oauth/telegram/login?id=1', 'the administrator has not enabled Telegram login'],
    ] as const) {
      await root.put('/api/option/', { key, value: 'false' });
      expect((await gw.client().get(path)).body, key).toEqual({ success: false, message });
      await root.put('/api/option/', { key, value: 'true' });
    }
  });

  it('refuses private provider addresses unless AllowPrivateOutboundUrls is on', async () => {
    await root.put('/api/option/', { key: 'AllowPrivateOutboundUrls', value: 'false' });
    const browser = gw.client();
    const state = await stateFor(browser);
    const res = await withState(browser, `/api/oauth/github?code=gh-5&state=${state}`);
    expect(res.body.success).toBe(false);
    expect(res.body.message).toMatch(/private or reserved address/);
    expect((await gw.client().get('/api/oauth/wechat?code=wx5')).body.message).toMatch(/private or reserved address/);
    const s2 = await stateFor(browser);
    expect((await withState(browser, `/api/oauth/oidc?code=x&state=${s2}`)).body.message).toMatch(/private or reserved address/);
    // Redirects are never followed.
    await root.put('/api/option/', { key: 'AllowPrivateOutboundUrls', value: 'true' });
    await root.put('/api/option/', { key: 'oidc.well_known', value: `${fake.base}/redirect` });
    const s3 = await stateFor(browser);
    expect((await withState(browser, `/api/oauth/oidc?code=x&state=${s3}`)).body).toEqual({
      success: false,
      message: 'could not reach the provider: the provider answered HTTP 302',
    });
  });

  it('never leaks secrets in admin views of third-party users', async () => {
    const list = await root.get('/api/user/?page_size=100');
    expect(list.text).not.toMatch(/password|access_token|secret|\$2[aby]\$/i);
  });

  it('publishes every login flag and client id of spec 000 §3 in /api/status, and no secret', async () => {
    const status = await gw.client().get('/api/status');
    expect(status.body.success).toBe(true);
    const data = status.body.data;
    for (const key of [
      'system_name',
      'logo',
      'footer_html',
      'quota_per_unit',
      'display_in_currency',
      'enable_drawing',
      'enable_task',
      'enable_data_export',
      'chats',
      'data_export_default_time',
      'default_collapse_sidebar',
      'mj_notify_enabled',
      'chat_link',
      'chat_link2',
      'docs_link',
      'version',
      'start_time',
      'turnstile_check',
      'turnstile_site_key',
      'email_verification',
      'github_oauth',
      'github_client_id',
      'oidc_enabled',
      'oidc_client_id',
      'linuxdo_oauth',
      'linuxdo_client_id',
      'wechat_login',
      'wechat_qrcode',
      'telegram_oauth',
      'telegram_bot_name',
    ]) {
      expect(data, key).toHaveProperty(key);
    }
    expect(data).toMatchObject({
      github_oauth: true,
      github_client_id: 'gh-id',
      oidc_enabled: true,
      oidc_client_id: 'gw-client',
      linuxdo_oauth: true,
      linuxdo_client_id: 'ld-id',
      wechat_login: true,
      wechat_qrcode: 'https://gw.example.com/qr.png',
      telegram_oauth: true,
      telegram_bot_name: 'gw_login_bot',
      turnstile_site_key: 'ts-site-key',
      email_verification: false,
    });
    for (const secret of ['gh-secret', 'ld-secret', 'gw-client-secret', BOT_TOKEN, 'wx-token', 'ts-secret-key']) {
      expect(status.text, secret).not.toContain(secret);
    }
  });
});
