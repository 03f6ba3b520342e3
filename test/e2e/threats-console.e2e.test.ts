import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Black-box checks of the console API against /work/shared/reference/threats.md (K1–K4 secrets, Z1 IDOR,
 * Z3 mass assignment, M2 money fields, A3 CSRF, X1/X3 stored markup, S3 address forms, Z6 path spellings).
 * One gateway per database; the tests share its users and only add rows.
 */
const CANARY = 'cnry7Q2xZ';
const SECRET_OPTIONS = [
  'EpayKey',
  'SMTPToken',
  'GitHubClientSecret',
  'TurnstileSecretKey',
  'oidc.client_secret',
  'LinuxDOClientSecret',
  'TelegramBotToken',
  'WeChatServerToken',
];
const XSS = '<img src=x onerror=alert(1)><script>alert(2)</script>';

describe.each(testDatabases())('console threats on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let admin: ApiClient;
  let alice: ApiClient;
  let bob: ApiClient;
  const ids: Record<string, number> = {};

  async function newUser(name: string): Promise<ApiClient> {
    expect((await root.post('/api/user/', { username: name, password: 'password-123' })).body.success).toBe(true);
    const client = gw.client();
    const login = await client.login(name, 'password-123');
    expect(login.body.success).toBe(true);
    ids[name] = login.body.data.id;
    return client;
  }

  async function quotaOf(name: string): Promise<number> {
    return (await root.get(`/api/user/${ids[name]}`)).body.data.quota;
  }

  /** A refused request: a clear error (200 success:false or 4xx), never a 5xx nor a success. */
  function expectRefused(res: ApiResponse, what: string): void {
    expect.soft(res.status, `${what}: ${res.text}`).toBeLessThan(500);
    expect.soft(res.body?.success, `${what}: ${res.text}`).not.toBe(true);
  }

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    admin = await newUser('adam');
    expect((await root.post('/api/user/manage', { id: ids.adam, action: 'promote' })).body.success).toBe(true);
    alice = await newUser('alice');
    bob = await newUser('bob');
    expect((await root.put('/api/user/', { id: ids.alice, quota: 1_000_000 })).body.success).toBe(true);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('K1–K4: no secret option, key, access token or password hash in any list, search, detail or status answer', async () => {
    for (const key of SECRET_OPTIONS) {
      expect((await root.put('/api/option/', { key, value: `${CANARY}-${key}` })).body, key).toMatchObject({ success: true });
    }
    const accessToken = (await alice.get('/api/user/token')).body.data as string;
    const rootAccess = (await root.get('/api/user/token')).body.data as string;
    expect((await alice.post('/api/token/', { name: 'secret-probe', remain_quota: 10, expired_time: -1 })).body.success).toBe(true);
    const tokenId = (await alice.get('/api/token/?p=1&size=50')).body.data.items.find((t: any) => t.name === 'secret-probe').id;
    const fullKey = (await alice.post(`/api/token/${tokenId}/key`)).body.data.key as string;
    expect(fullKey.replace(/^sk-/, '')).toMatch(/^[A-Za-z0-9]{20,}$/);
    const channel = await root.post('/api/channel/', {
      mode: 'single',
      channel: { type: 1, name: 'probe', key: `sk-${CANARY}-channel-key-0123456789`, models: 'gpt-4o', group: 'default' },
    });
    expect(channel.body.success).toBe(true);
    const channelId = channel.body.data.ids[0];

    const reads: [string, ApiClient, string][] = [
      ['anonymous', gw.client(), '/api/status'],
      ['root', root, '/api/option/'],
      ['root', root, '/api/user/?p=1&page_size=100'],
      ['admin', admin, '/api/user/?p=1&page_size=100'],
      ['admin', admin, '/api/user/search?keyword=a'],
      ['admin', admin, `/api/user/${ids.alice}`],
      ['root', root, `/api/user/${ids.adam}`],
      ['alice', alice, '/api/user/self'],
      ['root', root, '/api/user/self'],
      ['admin', admin, '/api/channel/?p=1&page_size=100'],
      ['admin', admin, `/api/channel/${channelId}`],
      ['admin', admin, '/api/channel/search?keyword=probe'],
      ['alice', alice, '/api/token/?p=1&size=50'],
      ['alice', alice, '/api/token/search?keyword=secret'],
      ['alice', alice, `/api/token/${tokenId}`],
      ['admin', admin, '/api/log/?p=1&page_size=100'],
      ['alice', alice, '/api/log/self?p=1&page_size=100'],
      ['alice', alice, '/api/user/topup/info'],
      ['alice', alice, '/api/user/topup/self'],
      ['alice', alice, '/api/user/aff'],
      ['alice', alice, '/api/user/models'],
      ['alice', alice, '/api/user/self/groups'],
      ['anonymous', gw.client(), '/api/user/groups'],
      ['admin', admin, '/api/group'],
      ['admin', admin, '/api/redemption/?p=1&page_size=100'],
    ];
    const secrets = [CANARY, accessToken, rootAccess, fullKey.replace(/^sk-/, '')];
    for (const [who, client, path] of reads) {
      const res = await client.get(path);
      expect(res.body?.success, `${who} GET ${path}: ${res.text.slice(0, 200)}`).toBe(true);
      for (const secret of secrets) expect(res.text, `${who} GET ${path} leaks a secret`).not.toContain(secret);
      // Password hashes (bcrypt, argon2, scrypt or a bare SHA-256) and secret-named fields with a value.
      expect(res.text, `${who} GET ${path}`).not.toMatch(/\$2[aby]\$|\$argon2|\$scrypt|"[0-9a-f]{64}"/);
      expect(res.text, `${who} GET ${path}`).not.toMatch(
        /"(password|access_token|webhook_secret|client_secret|totp_secret)"\s*:\s*"[^"]+"/i,
      );
    }
    // Pass-the-hash: whatever the server stores, only the password itself logs in.
    expect((await gw.client().login('alice', `$2a$10$${'x'.repeat(53)}`)).body.success).toBe(false);
  });

  it('Z1: another user’s token ids answer exactly like missing ids on every route and change nothing', async () => {
    expect((await alice.post('/api/token/', { name: 'alice-own', remain_quota: 777, expired_time: -1 })).body.success).toBe(true);
    const before = (await alice.get('/api/token/search?keyword=alice-own')).body.data.items[0];
    const id = before.id as number;
    const attempts: [string, (target: number) => Promise<ApiResponse>][] = [
      ['get', (target) => bob.get(`/api/token/${target}`)],
      ['reveal', (target) => bob.post(`/api/token/${target}/key`)],
      ['update', (target) => bob.put('/api/token/', { id: target, name: 'pwned', remain_quota: 1, expired_time: -1 })],
      ['status', (target) => bob.put('/api/token/?status_only=true', { id: target, status: 2 })],
      ['delete', (target) => bob.delete(`/api/token/${target}`)],
    ];
    for (const [what, attempt] of attempts) {
      const res = await attempt(id);
      expectRefused(res, what);
      expect(res.text, what).not.toContain('alice-own');
      // Same answer as for an id that does not exist: no existence oracle.
      const missing = await attempt(999_999);
      expect({ status: res.status, body: res.body }, what).toEqual({ status: missing.status, body: missing.body });
    }
    const aliceKey = ((await alice.post(`/api/token/${id}/key`)).body.data.key as string).replace(/^sk-/, '');
    const keys = await bob.post('/api/token/batch/keys', { ids: [id] });
    expect(keys.status).toBeLessThan(500);
    expect(keys.text).not.toContain(aliceKey);
    const batch = await bob.post('/api/token/batch', { ids: [id] });
    expect(batch.status).toBeLessThan(500);
    expect((await alice.get(`/api/token/${id}`)).body.data).toMatchObject({ id, name: 'alice-own', remain_quota: 777, status: 1 });
    // Logs: user filters of the admin view are ignored on the self view.
    const foreign = await bob.get(`/api/log/self?username=alice&user_id=${ids.alice}&p=1&page_size=100`);
    expect(foreign.body.success).toBe(true);
    expect(foreign.body.data.items.every((row: any) => row.username === undefined || row.username === 'bob')).toBe(true);
    // Users: a plain user cannot read anyone by id, not even with another user's New-Api-User header.
    expectRefused(await bob.get(`/api/user/${ids.alice}`), 'user by id');
    const spoof = await bob.get('/api/user/self', { 'New-Api-User': String(ids.alice) });
    expect(spoof.status).toBe(401);
    expect(spoof.text).not.toContain('alice');
  });

  it('Z3: role, quota, owner, key, status and usage fields in bodies are ignored or refused', async () => {
    const created = await bob.post('/api/token/', {
      name: 'mass',
      remain_quota: 5,
      expired_time: -1,
      user_id: ids.alice,
      key: 'sk-chosenbyclient000000000000000000000000',
      status: 2,
      used_quota: -999999,
      id: 1,
    });
    expect(created.body.success).toBe(true);
    const token = (await bob.get('/api/token/search?keyword=mass')).body.data.items[0];
    expect(token).toMatchObject({ name: 'mass', status: 1, used_quota: 0, remain_quota: 5 });
    expect(token.user_id === undefined || token.user_id === ids.bob).toBe(true);
    expect((await bob.post(`/api/token/${token.id}/key`)).body.data.key).not.toContain('chosenbyclient');
    expect((await alice.get('/api/token/search?keyword=mass')).body.data.items).toEqual([]);

    const made = await root.post('/api/user/', {
      username: 'mallory',
      password: 'password-123',
      role: 100,
      quota: 10 ** 12,
      status: 2,
      group: 'vip',
    });
    expect(made.body.success).toBe(true);
    const mallory = (await root.get('/api/user/search?keyword=mallory')).body.data.items[0];
    expect(mallory).toMatchObject({ role: 1, status: 1 });
    expect(mallory.quota).toBeLessThan(10 ** 12);

    expect((await admin.put('/api/user/', { id: ids.bob, role: 100, status: 1 })).body.success).toBe(true);
    expect((await root.get(`/api/user/${ids.bob}`)).body.data.role).toBe(1);

    const codes = await root.post('/api/redemption/', {
      name: 'mass',
      quota: 100,
      count: 1,
      key: 'chosen-key',
      status: 3,
      used_user_id: ids.bob,
      redeemed_time: 1,
    });
    expect(codes.body.success).toBe(true);
    expect(codes.body.data[0]).not.toBe('chosen-key');
    const code = (await root.get('/api/redemption/search?keyword=mass')).body.data.items[0];
    expect(code).toMatchObject({ status: 1, used_user_id: 0 });
    expect(
      (await root.put('/api/redemption/', { id: code.id, name: 'mass', quota: 100, used_user_id: ids.bob, status: 3, key: 'chosen-key' }))
        .body.success,
    ).toBe(true);
    expect((await root.get(`/api/redemption/${code.id}`)).body.data).toMatchObject({ status: 1, used_user_id: 0, key: codes.body.data[0] });

    const channel = await admin.post('/api/channel/', {
      mode: 'single',
      channel: {
        type: 1,
        name: 'mass',
        key: 'sk-mass-key-0123456789',
        models: 'gpt-4o',
        group: 'default',
        used_quota: 10 ** 9,
        balance: 10 ** 6,
        response_time: -5,
        id: 1,
      },
    });
    expect(channel.body.success).toBe(true);
    const channelId = channel.body.data.ids[0];
    expect((await admin.put('/api/channel/', { id: channelId, used_quota: 10 ** 9, balance: 10 ** 6 })).body.success).toBe(true);
    expect((await admin.get(`/api/channel/${channelId}`)).body.data).toMatchObject({ used_quota: 0, balance: 0 });
  });

  it('M2: money fields refuse negative, fractional, huge and non-numeric values with a clear error', async () => {
    const aliceBefore = await quotaOf('alice');
    // ('0x10' is left out: the redemption contract reads it as 16, a bounded value only an admin can send.)
    const bad: unknown[] = [-1, -(2 ** 53), 1.5, 2 ** 53, 2 ** 63, 2 ** 64, 1e308, '1e999', 'NaN', '-5', '1.5', null, true, [], {}];
    for (const value of bad) {
      const label = JSON.stringify(value);
      expectRefused(await alice.post('/api/token/', { name: 'm2', remain_quota: value, expired_time: -1 }), `token remain_quota ${label}`);
      expectRefused(await root.post('/api/redemption/', { name: 'm2', quota: value, count: 1 }), `redemption quota ${label}`);
      expectRefused(await root.put('/api/user/', { id: ids.alice, quota: value }), `user quota ${label}`);
      expectRefused(await alice.post('/api/user/aff_transfer', { quota: value }), `aff_transfer ${label}`);
      expectRefused(await alice.post('/api/user/amount', { amount: value }), `top-up amount ${label}`);
      expectRefused(await alice.put('/api/user/setting', { quota_warning_threshold: value }), `warning threshold ${label}`);
    }
    for (const count of [0, -1, 101, 1e9, 2 ** 63, 1.5, '1e3']) {
      expectRefused(await alice.post('/api/token/', { name: 'm2', remain_quota: 1, expired_time: -1, count }), `token count ${count}`);
      expectRefused(await root.post('/api/redemption/', { name: 'm2', quota: 1, count }), `redemption count ${count}`);
    }
    // NaN and Infinity are not JSON: a parse error, never a 500.
    const raw = await alice.raw('POST', '/api/token/', '{"name":"m2","remain_quota":NaN}');
    expect(raw.status).toBeGreaterThanOrEqual(400);
    expect(raw.status).toBeLessThan(500);
    expect((await alice.get('/api/token/search?keyword=m2')).body.data.items).toEqual([]);
    expect((await root.get('/api/redemption/search?keyword=m2')).body.data.items).toEqual([]);
    expect(await quotaOf('alice')).toBe(aliceBefore);
  });

  it('M2: crediting the largest allowed codes never wraps the balance, loses it silently, or answers 500', async () => {
    const made = await root.post('/api/redemption/', { name: 'huge', quota: Number.MAX_SAFE_INTEGER, count: 2 });
    expect(made.body.success).toBe(true);
    const [first, second] = made.body.data as string[];
    const before = await quotaOf('bob');
    const one = await bob.post('/api/user/topup', { key: first });
    expect(one.body).toMatchObject({ success: true });
    const afterOne = await quotaOf('bob');
    expect(afterOne).toBe(before + Number.MAX_SAFE_INTEGER);
    // A second credit would pass 2^53: it must be refused (and the code stay usable) or stored exactly.
    const two = await bob.post('/api/user/topup', { key: second });
    expect(two.status).toBeLessThan(500);
    const afterTwo = await quotaOf('bob');
    expect(afterTwo).toBeGreaterThanOrEqual(afterOne);
    expect(Number.isSafeInteger(afterTwo)).toBe(true);
    if (!two.body.success)
      expect((await root.get('/api/redemption/search?keyword=huge')).body.data.items.some((c: any) => c.status === 1)).toBe(true);
    expect((await bob.get('/api/user/self')).body.data.quota).toBe(afterTwo);
    // K3: the top-up log names the code by id, never by its secret.
    const logs = await admin.get('/api/log/?p=1&page_size=100&type=1');
    expect(logs.body.data.items.some((row: any) => row.user_id === ids.bob || row.username === 'bob')).toBe(true);
    expect(logs.text).not.toContain(first);
    expect((await bob.get('/api/log/self?p=1&page_size=100')).text).not.toContain(first);
  });

  it('A3: no cross-origin credentialed access, strict HttpOnly cookies, and cookie-only GETs change nothing', async () => {
    const origin = 'https://evil.test';
    const preflight = await fetch(`${gw.url}/api/user/self`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'new-api-user,content-type' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).not.toBe(origin);
    expect(preflight.headers.get('access-control-allow-credentials')).not.toBe('true');
    const read = await alice.get('/api/user/self', { Origin: origin });
    expect(read.headers.get('access-control-allow-origin')).not.toBe(origin);
    expect(read.headers.get('access-control-allow-credentials')).not.toBe('true');

    const login = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bob', password: 'password-123' }),
    });
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('session='))!;
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=(Strict|Lax)/i);

    // Session fixation: a cookie planted before login (here bob's own live session) is replaced on login and
    // never becomes the victim's session.
    const planted = bob.cookie!;
    const victim = gw.client();
    victim.cookie = planted;
    expect((await victim.login('alice', 'password-123')).body.success).toBe(true);
    expect(victim.cookie).not.toBe(planted);
    const attacker = gw.client();
    attacker.cookie = planted;
    attacker.userId = ids.alice;
    expect((await attacker.get('/api/user/self')).status).toBe(401);

    // Login CSRF: a cross-site form can only send text/plain, urlencoded or multipart bodies, never JSON.
    const credentials = JSON.stringify({ username: 'bob', password: 'password-123' });
    for (const [type, payload] of [
      ['text/plain', credentials],
      ['application/x-www-form-urlencoded', 'username=bob&password=password-123'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="username"\r\n\r\nbob\r\n--x\r\nContent-Disposition: form-data; name="password"\r\n\r\npassword-123\r\n--x--\r\n',
      ],
    ]) {
      const res = await gw.client().raw('POST', '/api/user/login', payload!, { 'content-type': type!, Origin: origin });
      expect(res.status, type).toBeLessThan(500);
      expect(res.body?.success, type).not.toBe(true);
      expect(
        res.headers.getSetCookie().some((c) => c.startsWith('session=') && !c.startsWith('session=;')),
        type,
      ).toBe(false);
    }

    // A cross-site page can send the cookie but not the New-Api-User header: every state-changing GET refuses it.
    const cookieOnly = gw.client();
    cookieOnly.cookie = alice.cookie;
    const accessBefore = (await root.get(`/api/user/${ids.alice}`)).text;
    for (const path of [
      '/api/user/token',
      '/api/oauth/email/bind?email=x@evil.test&code=123456',
      '/api/user/aff',
      '/api/oauth/wechat/bind?code=1',
    ]) {
      const res = await cookieOnly.get(path);
      expect(res.status, path).toBe(401);
    }
    expect((await root.get(`/api/user/${ids.alice}`)).text).toBe(accessBefore);
    expect((await alice.get('/api/user/self')).body.data.email ?? '').not.toBe('x@evil.test');
  });

  it('X1/X3: markup in names and notices is stored byte-exact and always served as JSON, never HTML', async () => {
    expect((await alice.post('/api/token/', { name: XSS.slice(0, 50), remain_quota: 1, expired_time: -1 })).body.success).toBe(true);
    expect((await alice.put('/api/user/self', { display_name: '<svg onload=1>' })).body.success).toBe(true);
    expect((await root.post('/api/redemption/', { name: '<b>x</b>', quota: 1, count: 1 })).body.success).toBe(true);
    expect((await root.put('/api/option/', { key: 'Notice', value: XSS })).body.success).toBe(true);
    expect((await root.put('/api/option/', { key: 'Footer', value: XSS })).body.success).toBe(true);

    const tokens = await alice.get('/api/token/?p=1&size=100');
    expect(tokens.body.data.items.map((t: any) => t.name)).toContain(XSS.slice(0, 50));
    expect((await alice.get('/api/user/self')).body.data.display_name).toBe('<svg onload=1>');
    const notice = await gw.client().get('/api/notice');
    expect(notice.body.data).toBe(XSS);
    for (const res of [
      tokens,
      notice,
      await gw.client().get('/api/status'),
      await gw.client().get('/api/about'),
      await gw.client().get('/api/home_page_content'),
    ]) {
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
    // Errors echo no raw markup as HTML either.
    const missing = await gw.client().get(`/api/${encodeURIComponent('<script>alert(1)</script>')}`);
    expect(missing.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
  });

  it('S3: a webhook URL at any loopback, private or reserved address form is refused at save time', async () => {
    const forms = [
      '0.0.0.0',
      '0',
      '127.1',
      '127.0.0.1',
      '2130706433',
      '0x7f000001',
      '017700000001',
      '0177.0.0.1',
      '127.000.000.001',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::]',
      '[::1]',
      '[0:0:0:0:0:0:0:1]',
      '[fe80::1]',
      '[fc00::1]',
      '[fd12:3456::1]',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '198.18.0.1',
      '169.254.169.254',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.0.1',
      '192.0.2.1',
      '240.0.0.1',
      'localhost',
      'LOCALHOST.',
      'metadata.google.internal',
      'ⓛocalhost',
      '127.0.0.1.nip.io.invalid',
      '[::ffff:a9fe:a9fe]',
      '[64:ff9b::127.0.0.1]',
    ];
    for (const host of forms) {
      for (const url of [`https://${host}/hook`, `https://${host}:8443/hook`]) {
        const res = await alice.put('/api/user/setting', { notify_type: 'webhook', webhook_url: url });
        expectRefused(res, url);
      }
    }
    for (const url of [
      'https://user:pw@8.8.8.8/hook',
      'file:///etc/passwd',
      'gopher://8.8.8.8/',
      'http://8.8.8.8/hook',
      'javascript:alert(1)',
    ]) {
      expectRefused(await alice.put('/api/user/setting', { notify_type: 'webhook', webhook_url: url }), url);
    }
  });

  it('A7: search wildcards are literal and oversized keywords get a clear, quick answer on every search route', async () => {
    const searches: [ApiClient, string][] = [
      [alice, '/api/token/search?keyword='],
      [admin, '/api/user/search?keyword='],
      [root, '/api/redemption/search?keyword='],
      [admin, '/api/channel/search?keyword='],
    ];
    for (const [client, path] of searches) {
      for (const keyword of ['%', '_', '%_%_%', '\\', "' OR 1=1 --"]) {
        const res = await client.get(path + encodeURIComponent(keyword));
        expect(res.body?.success, `${path}${keyword}: ${res.text.slice(0, 200)}`).toBe(true);
        expect(res.body.data.items, `${path}${keyword}`).toEqual([]);
      }
      const started = Date.now();
      const long = await client.get(path + 'a'.repeat(10_000));
      expect(long.status, path).toBeLessThan(500);
      expect(Date.now() - started, path).toBeLessThan(2000);
    }
  });

  it('K3: a wrong or foreign key is never echoed back by the token-key routes', async () => {
    const wrong = `sk-${CANARY}wrongkey0123456789abcdefgh`;
    for (const res of [
      await gw.client().get('/api/usage/token', { Authorization: `Bearer ${wrong}` }),
      await gw.client().get(`/api/log/token?key=${wrong}`),
      await gw.client().get('/dashboard/billing/subscription', { Authorization: `Bearer ${wrong}` }),
    ]) {
      expect(res.status).toBeLessThan(500);
      expect(res.text).not.toContain(`${CANARY}wrongkey`);
    }
  });

  it('Z6: other spellings of an admin route reach the same auth decision', async () => {
    const anon = gw.client();
    const spellings = [
      '/API/OPTION/',
      '/api//option/',
      '/api/option/./',
      '/api/%6Fption/',
      '/api/token/../option/',
      '/api/option;x=1/',
      '/Api/Option',
    ];
    for (const path of spellings) {
      for (const client of [bob, anon]) {
        const res = await client.get(path);
        expect(res.status, path).toBeLessThan(500);
        expect(res.body?.success, path).not.toBe(true);
        expect(res.text, path).not.toContain('EpayKey');
      }
    }
    const abs = await fetch(`${gw.url}/api/option/`, {
      headers: { Host: 'evil.test', cookie: bob.cookie!, 'New-Api-User': String(ids.bob) },
    });
    expect((await abs.json()).success).not.toBe(true);
  });
});
