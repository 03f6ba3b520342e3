import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const PASSWORD = 'cookie-pass-123';
const HTTPS = { 'X-Forwarded-Proto': 'https' };

interface SetCookie {
  name: string;
  value: string;
  /** Attribute names in lower case → value ('' for a flag). */
  attributes: Map<string, string>;
}

function parseSetCookie(header: string): SetCookie {
  const [pair, ...rest] = header.split(';');
  const eq = pair!.indexOf('=');
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf('=');
    const name = (at === -1 ? part : part.slice(0, at)).trim().toLowerCase();
    attributes.set(name, at === -1 ? '' : part.slice(at + 1).trim());
  }
  return { name: pair!.slice(0, eq).trim(), value: pair!.slice(eq + 1).trim(), attributes };
}

/** The one Set-Cookie named `name` of a response. */
function cookieOf(headers: Headers, name: string): SetCookie {
  const found = headers
    .getSetCookie()
    .map(parseSetCookie)
    .filter((c) => c.name === name);
  expect(found, `Set-Cookie ${name}: ${headers.getSetCookie().join(' | ')}`).toHaveLength(1);
  return found[0]!;
}

/** HttpOnly always, SameSite as the code sets it, and Secure exactly when the browser came over HTTPS. */
function expectAttributes(cookie: SetCookie, expected: { secure: boolean; sameSite: 'Strict' | 'Lax'; path: string; maxAge: string }) {
  expect(cookie.attributes.has('httponly'), `${cookie.name} HttpOnly`).toBe(true);
  expect(cookie.attributes.get('samesite'), `${cookie.name} SameSite`).toBe(expected.sameSite);
  expect(cookie.attributes.get('path'), `${cookie.name} Path`).toBe(expected.path);
  expect(cookie.attributes.get('max-age'), `${cookie.name} Max-Age`).toBe(expected.maxAge);
  expect(cookie.attributes.has('secure'), `${cookie.name} Secure`).toBe(expected.secure);
  // A Domain attribute would widen the cookie to sibling hosts.
  expect(cookie.attributes.has('domain'), `${cookie.name} Domain`).toBe(false);
}

const SESSION = { sameSite: 'Strict', path: '/', maxAge: String(30 * 24 * 3600) } as const;

async function login(gw: TestGateway, username: string, headers: Record<string, string> = {}) {
  return fetch(`${gw.url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
}

/**
 * Threat A3 (ASVS 5.0 V3.3.1/V3.3.2): the session cookie is HttpOnly and SameSite=Strict always, and Secure when
 * the console is served over HTTPS. The gateway speaks plain HTTP behind a TLS-terminating proxy, so "HTTPS" is
 * Express's req.secure: X-Forwarded-Proto, believed only from an address in TRUSTED_PROXIES (`trust proxy`).
 * The database plays no part here, so SQLite only.
 */
describe('threats A3: session cookie attributes over HTTP and HTTPS', () => {
  describe('behind a trusted proxy (TRUSTED_PROXIES=127.0.0.1)', () => {
    let gw: TestGateway;
    let root: ApiClient;

    beforeAll(async () => {
      gw = await startTestGateway('sqlite', { TRUSTED_PROXIES: '127.0.0.1' });
      root = await setupRoot(gw);
      for (const username of ['cookie_u', 'cookie_2fa']) {
        expect((await root.post('/api/user/', { username, password: PASSWORD })).body.success).toBe(true);
      }
    });
    afterAll(async () => gw?.close());

    it('a login forwarded as HTTPS sets a Secure, HttpOnly, SameSite=Strict session cookie that works', async () => {
      const res = await login(gw, 'cookie_u', HTTPS);
      const body = (await res.json()) as { success: boolean; data: { id: number } };
      expect(body.success).toBe(true);
      const cookie = cookieOf(res.headers, 'session');
      expectAttributes(cookie, { ...SESSION, secure: true });
      expect(cookie.value.length).toBeGreaterThan(40);
      const self = await gw.client().get('/api/user/self', { cookie: `session=${cookie.value}`, 'New-Api-User': String(body.data.id) });
      expect(self.body.data.username).toBe('cookie_u');

      // Logging out clears it with the same attributes (a cookie is only replaced by one with the same flags).
      const out = await gw.client().get('/api/user/logout', { ...HTTPS, cookie: `session=${cookie.value}` });
      const cleared = cookieOf(out.headers, 'session');
      expect(cleared.value).toBe('');
      expectAttributes(cleared, { ...SESSION, maxAge: '0', secure: true });
    });

    it('a plain-HTTP login (no header, or X-Forwarded-Proto: http) sets the cookie without Secure, still HttpOnly and Strict', async () => {
      for (const headers of [{}, { 'X-Forwarded-Proto': 'http' }] as Record<string, string>[]) {
        const res = await login(gw, 'cookie_u', headers);
        expect(((await res.json()) as { success: boolean }).success).toBe(true);
        expectAttributes(cookieOf(res.headers, 'session'), { ...SESSION, secure: false });
      }
    });

    it('the half-done two-factor login and the session that completes it follow the same rule', async () => {
      const user = gw.client();
      expect((await user.login('cookie_2fa', PASSWORD)).body.success).toBe(true);
      const setup = await user.post('/api/user/2fa/setup');
      const secret = setup.body.data.secret as string;
      const now = Math.floor(Date.now() / 1000);
      expect((await user.post('/api/user/2fa/enable', { code: await generate({ secret, epoch: now }) })).body.success).toBe(true);

      const first = await login(gw, 'cookie_2fa', HTTPS);
      expect(((await first.json()) as { data: { require_2fa: boolean } }).data.require_2fa).toBe(true);
      const pending = cookieOf(first.headers, 'session');
      expectAttributes(pending, { ...SESSION, secure: true });
      // The code that turned 2FA on is spent: the next step's code completes the login.
      const second = await gw
        .client()
        .post(
          '/api/user/login/2fa',
          { code: await generate({ secret, epoch: now + 30 }) },
          { ...HTTPS, cookie: `session=${pending.value}` },
        );
      expect(second.body.success, second.text).toBe(true);
      const session = cookieOf(second.headers, 'session');
      expect(session.value).not.toBe(pending.value);
      expectAttributes(session, { ...SESSION, secure: true });
    });

    it('the OAuth state cookie is HttpOnly, SameSite=Lax (it must come back from the provider) and Secure over HTTPS', async () => {
      const secure = await gw.client().get('/api/oauth/state', HTTPS);
      expect(secure.body.success, secure.text).toBe(true);
      expectAttributes(cookieOf(secure.headers, 'oauth_state'), { secure: true, sameSite: 'Lax', path: '/api/oauth', maxAge: '600' });
      const plain = await gw.client().get('/api/oauth/state');
      expectAttributes(cookieOf(plain.headers, 'oauth_state'), { secure: false, sameSite: 'Lax', path: '/api/oauth', maxAge: '600' });
    });
  });

  describe('without TRUSTED_PROXIES', () => {
    let gw: TestGateway;

    beforeAll(async () => {
      gw = await startTestGateway('sqlite');
      const root = await setupRoot(gw);
      expect((await root.post('/api/user/', { username: 'cookie_d', password: PASSWORD })).body.success).toBe(true);
    });
    afterAll(async () => gw?.close());

    it('X-Forwarded-Proto from a peer that is not a trusted proxy does not count: the request is plain HTTP', async () => {
      const res = await login(gw, 'cookie_d', HTTPS);
      expect(((await res.json()) as { success: boolean }).success).toBe(true);
      expectAttributes(cookieOf(res.headers, 'session'), { ...SESSION, secure: false });
    });
  });
});
