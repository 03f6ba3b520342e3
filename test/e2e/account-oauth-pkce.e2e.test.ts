import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { startOidcTestProvider, type OidcTestProvider } from '../support/oidc-provider.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const SERVER_ADDRESS = 'https://gw.example.com';
const SLUG = 'pkce-sso';

/**
 * A GitHub and Discord stand-in that does what they do with PKCE: a code issued for a challenge is
 * exchanged only with the verifier that hashes to it; a code issued without one (a state-only start)
 * needs none. GitHub's token request is JSON, Discord's a form.
 */
async function startFakeGitHub() {
  const challenges = new Map<string, string | undefined>();
  const tokenBodies: Record<string, string>[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => {
      raw += chunk.toString();
    });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/token' || req.url === '/discord/token') {
        const body: Record<string, string> = req.url === '/token' ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
        tokenBodies.push(body);
        const code = body.code ?? '';
        const challenge = challenges.get(code);
        const verified =
          challenges.has(code) &&
          (challenge === undefined ||
            (!!body.code_verifier && createHash('sha256').update(body.code_verifier).digest('base64url') === challenge));
        challenges.delete(code);
        res.end(JSON.stringify(verified ? { access_token: `token-${code}` } : { error: 'bad_verification_code' }));
        return;
      }
      const login = String(req.headers.authorization ?? '').replace('Bearer token-', '');
      res.end(JSON.stringify({ id: `id-${login}`, login, name: `GitHub ${login}`, username: login, global_name: `Discord ${login}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tokenBodies,
    /** The user approved: GitHub remembers the link's challenge (if any) with the code it hands back. */
    authorize(code: string, challenge?: string) {
      challenges.set(code, challenge);
      return code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A login the gateway started: its authorize link, and the state cookie the browser got with it. */
interface StartedLogin {
  state: string;
  url: URL;
  cookie: string;
}

describe.each(testDatabases())('OAuth state, nonce and PKCE (S256) on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  /** Both providers refuse an authorization request without a code challenge. */
  let oidcIdp: OidcTestProvider;
  let customIdp: OidcTestProvider;
  let github: Awaited<ReturnType<typeof startFakeGitHub>>;
  let customProvider: Record<string, unknown>;

  async function start(client: ApiClient, provider: string): Promise<StartedLogin> {
    const res = await client.get(`/api/oauth/${provider}/authorize`);
    expect(res.body, res.text).toMatchObject({ success: true });
    const cookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('oauth_state='))!
      .split(';')[0]!;
    return { state: res.body.data.state, url: new URL(res.body.data.url), cookie };
  }

  /** What the browser sends to the provider: the challenge and nonce from the link (or forged ones). */
  function linkParams(login: StartedLogin, override: Record<string, string> = {}) {
    const params: Record<string, string> = {};
    for (const key of ['code_challenge', 'code_challenge_method', 'nonce']) {
      const value = login.url.searchParams.get(key);
      if (value) params[key] = value;
    }
    return { ...params, ...override };
  }

  function finish(client: ApiClient, provider: string, login: StartedLogin, code: string, state = login.state) {
    const saved = client.cookie;
    const withState = [saved, login.cookie].filter(Boolean).join('; ');
    client.cookie = withState;
    return client.get(`/api/oauth/${provider}?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`).finally(() => {
      // A login replaces the cookie with the new session; otherwise the state cookie goes, as the browser's expires.
      if (client.cookie === withState) client.cookie = saved;
    });
  }

  beforeAll(async () => {
    oidcIdp = await startOidcTestProvider({
      clientId: 'pkce-client',
      clientSecret: 'pkce-secret',
      redirectUri: `${SERVER_ADDRESS}/oauth/oidc`,
      pkce: true,
    });
    customIdp = await startOidcTestProvider({
      clientId: 'custom-client',
      clientSecret: 'custom-secret',
      redirectUri: `${SERVER_ADDRESS}/oauth/${SLUG}`,
      pkce: true,
    });
    github = await startFakeGitHub();
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    for (const [key, value] of Object.entries({
      ServerAddress: SERVER_ADDRESS,
      AllowPrivateOutboundUrls: 'true',
      'oidc.enabled': 'true',
      'oidc.well_known': `${oidcIdp.issuer}/.well-known/openid-configuration`,
      'oidc.client_id': 'pkce-client',
      'oidc.client_secret': 'pkce-secret',
      GitHubOAuthEnabled: 'true',
      GitHubClientId: 'gh-pkce-id',
      GitHubClientSecret: 'gh-pkce-secret',
      GitHubTokenUrl: `${github.base}/token`,
      GitHubUserUrl: `${github.base}/user`,
      'discord.enabled': 'true',
      'discord.client_id': 'dc-pkce-id',
      'discord.client_secret': 'dc-pkce-secret',
      DiscordTokenUrl: `${github.base}/discord/token`,
      DiscordUserUrl: `${github.base}/discord/user`,
    })) {
      expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    }
  });
  afterAll(async () => {
    await gw?.close();
    await oidcIdp?.close();
    await customIdp?.close();
    await github?.close();
  });

  it('builds the OIDC authorize link with state, nonce and an S256 challenge, keeping the verifier server side', async () => {
    const login = await start(gw.client(), 'oidc');
    expect(login.url.origin + login.url.pathname).toBe(`${oidcIdp.issuer}/auth`);
    expect(Object.fromEntries(login.url.searchParams)).toMatchObject({
      client_id: 'pkce-client',
      response_type: 'code',
      redirect_uri: `${SERVER_ADDRESS}/oauth/oidc`,
      state: login.state,
      code_challenge_method: 'S256',
    });
    expect(login.url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(login.url.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(login.url.searchParams.has('code_verifier')).toBe(false);
  });

  it('signs in through a provider that requires PKCE: the token request carries the matching code_verifier', async () => {
    const browser = gw.client();
    const login = await start(browser, 'oidc');
    const code = await oidcIdp.authorize('pkce-alice', login.state, linkParams(login));
    const res = await finish(browser, 'oidc', login, code);
    expect(res.body, res.text).toMatchObject({ success: true, data: { display_name: 'OIDC pkce-alice' } });
    browser.userId = res.body.data.id;
    expect((await browser.get('/api/user/self')).body.data.oidc_id).toBe('pkce-alice');
  });

  it('refuses a missing, made-up, foreign or reused state', async () => {
    const browser = gw.client();
    const login = await start(browser, 'oidc');
    const code = await oidcIdp.authorize('pkce-bob', login.state, linkParams(login));
    const invalid = { success: false, message: 'state is empty or invalid' };
    expect((await finish(browser, 'oidc', login, code, '')).body).toEqual(invalid);
    expect((await finish(browser, 'oidc', login, code, 'made-up-state')).body).toEqual(invalid);
    // Without the browser's state cookie (another browser) the right state is refused too.
    expect((await gw.client().get(`/api/oauth/oidc?code=${code}&state=${login.state}`)).body).toEqual(invalid);
    expect((await finish(browser, 'oidc', login, code)).body.success).toBe(true);
    expect((await finish(gw.client(), 'oidc', login, code)).body).toEqual(invalid);
  });

  it('refuses a code obtained with another login’s challenge (wrong verifier) or with a forged nonce', async () => {
    const browser = gw.client();
    const first = await start(browser, 'oidc');
    const second = await start(browser, 'oidc');
    // The provider issued the code for the first link's challenge; the callback proves the second one's verifier.
    const crossed = await oidcIdp.authorize('pkce-carol', second.state, linkParams(first));
    const refused = await finish(browser, 'oidc', second, crossed);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toMatch(/^OIDC login failed/);

    const third = await start(browser, 'oidc');
    const forged = await oidcIdp.authorize('pkce-carol', third.state, linkParams(third, { nonce: 'forged-nonce' }));
    const noNonce = await finish(browser, 'oidc', third, forged);
    expect(noNonce.body.success).toBe(false);
    expect(noNonce.body.message).toBe('OIDC login failed: unexpected ID Token "nonce" claim value');
  });

  it('uses PKCE for a custom provider with its switch on, and refuses a login the gateway did not start', async () => {
    const created = await root.post('/api/custom-oauth-provider', {
      name: 'PKCE SSO',
      slug: SLUG,
      enabled: true,
      client_id: 'custom-client',
      client_secret: 'custom-secret',
      authorization_endpoint: `${customIdp.issuer}/auth`,
      token_endpoint: `${customIdp.issuer}/token`,
      user_info_endpoint: `${customIdp.issuer}/me`,
      pkce_enabled: true,
    });
    expect(created.body, created.text).toMatchObject({ success: true, data: { pkce_enabled: true } });
    customProvider = created.body.data;

    const browser = gw.client();
    const login = await start(browser, SLUG);
    expect(login.url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(login.url.searchParams.get('redirect_uri')).toBe(`${SERVER_ADDRESS}/oauth/${SLUG}`);
    const code = await customIdp.authorize('pkce-dora', login.state, linkParams(login));
    const res = await finish(browser, SLUG, login, code);
    expect(res.body, res.text).toMatchObject({ success: true, data: { display_name: 'OIDC pkce-dora' } });

    // new-api's state-only start (`GET /api/oauth/state`) has no verifier: refused for this provider.
    const legacy = gw.client();
    const stateRes = await legacy.get('/api/oauth/state');
    const cookie = stateRes.headers
      .getSetCookie()
      .find((c) => c.startsWith('oauth_state='))!
      .split(';')[0]!;
    const plain = { state: stateRes.body.data as string, url: new URL(SERVER_ADDRESS), cookie };
    expect((await finish(legacy, SLUG, plain, 'any-code')).body).toEqual({ success: false, message: 'state is empty or invalid' });
    // A state issued for this provider does not open the built-in OIDC callback.
    const crossed = await start(browser, SLUG);
    expect((await finish(browser, 'oidc', crossed, 'any-code')).body).toEqual({ success: false, message: 'state is empty or invalid' });
  });

  it('sends a nonce to a custom provider with an issuer (discovery) and checks it in the ID token', async () => {
    const updated = await root.put(`/api/custom-oauth-provider/${customProvider.id}`, {
      ...customProvider,
      client_secret: '',
      well_known: `${customIdp.issuer}/.well-known/openid-configuration`,
    });
    expect(updated.body, updated.text).toMatchObject({ success: true });

    const browser = gw.client();
    const login = await start(browser, SLUG);
    expect(login.url.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(login.url.searchParams.get('code_challenge_method')).toBe('S256');
    const code = await customIdp.authorize('pkce-ivan', login.state, linkParams(login));
    const res = await finish(browser, SLUG, login, code);
    expect(res.body, res.text).toMatchObject({ success: true, data: { display_name: 'OIDC pkce-ivan' } });

    const forgedLogin = await start(browser, SLUG);
    const forged = await customIdp.authorize('pkce-ivan', forgedLogin.state, linkParams(forgedLogin, { nonce: 'forged-nonce' }));
    expect((await finish(browser, SLUG, forgedLogin, forged)).body).toEqual({
      success: false,
      message: 'PKCE SSO login failed: unexpected ID Token "nonce" claim value',
    });
  });

  it('starts GitHub at the authorize route: S256 challenge out, the matching verifier in the token request', async () => {
    const browser = gw.client();
    const login = await start(browser, 'github');
    expect(login.url.origin + login.url.pathname).toBe('https://github.com/login/oauth/authorize');
    expect(Object.fromEntries(login.url.searchParams)).toMatchObject({
      client_id: 'gh-pkce-id',
      scope: 'user:email',
      redirect_uri: `${SERVER_ADDRESS}/oauth/github`,
      state: login.state,
      code_challenge_method: 'S256',
    });
    const challenge = login.url.searchParams.get('code_challenge')!;
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(login.url.searchParams.has('code_verifier')).toBe(false);

    const res = await finish(browser, 'github', login, github.authorize('erin', challenge));
    expect(res.body, res.text).toMatchObject({ success: true, data: { display_name: 'GitHub erin' } });
    const sent = github.tokenBodies.at(-1)!;
    expect(createHash('sha256').update(sent.code_verifier!).digest('base64url')).toBe(challenge);
    expect(sent).toMatchObject({ client_id: 'gh-pkce-id', code: 'erin', redirect_uri: `${SERVER_ADDRESS}/oauth/github` });
  });

  it('refuses a GitHub callback with a missing, made-up, foreign or reused state, or another login’s verifier', async () => {
    const browser = gw.client();
    const login = await start(browser, 'github');
    const code = github.authorize('frank', login.url.searchParams.get('code_challenge')!);
    const invalid = { success: false, message: 'state is empty or invalid' };
    expect((await finish(browser, 'github', login, code, '')).body).toEqual(invalid);
    expect((await finish(browser, 'github', login, code, 'made-up-state')).body).toEqual(invalid);
    expect((await gw.client().get(`/api/oauth/github?code=${code}&state=${login.state}`)).body).toEqual(invalid);
    // A state issued for the OIDC login does not open the GitHub callback.
    const oidc = await start(browser, 'oidc');
    expect((await finish(browser, 'github', oidc, code)).body).toEqual(invalid);
    expect((await finish(browser, 'github', login, code)).body.success).toBe(true);
    expect((await finish(gw.client(), 'github', login, code)).body).toEqual(invalid);

    // The code was issued for the first link's challenge; the second login's verifier does not match it.
    const first = await start(browser, 'github');
    const second = await start(browser, 'github');
    const crossed = github.authorize('grace', first.url.searchParams.get('code_challenge')!);
    expect((await finish(browser, 'github', second, crossed)).body).toEqual({
      success: false,
      message: 'GitHub login failed: no access token',
    });
  });

  it('still finishes a GitHub login started from new-api’s state-only route, with no verifier sent', async () => {
    const legacy = gw.client();
    const stateRes = await legacy.get('/api/oauth/state');
    const cookie = stateRes.headers
      .getSetCookie()
      .find((c) => c.startsWith('oauth_state='))!
      .split(';')[0]!;
    const plain = { state: stateRes.body.data as string, url: new URL(SERVER_ADDRESS), cookie };
    const res = await finish(legacy, 'github', plain, github.authorize('heidi'));
    expect(res.body, res.text).toMatchObject({ success: true, data: { display_name: 'GitHub heidi' } });
    const sent = github.tokenBodies.at(-1)!;
    expect(sent.code).toBe('heidi');
    expect(sent).not.toHaveProperty('code_verifier');
  });

  it('starts Discord at the authorize route too: the form token request carries the matching verifier', async () => {
    const browser = gw.client();
    const login = await start(browser, 'discord');
    expect(login.url.origin + login.url.pathname).toBe('https://discord.com/oauth2/authorize');
    expect(Object.fromEntries(login.url.searchParams)).toMatchObject({
      client_id: 'dc-pkce-id',
      response_type: 'code',
      scope: 'identify',
      redirect_uri: `${SERVER_ADDRESS}/oauth/discord`,
      state: login.state,
      code_challenge_method: 'S256',
    });
    const challenge = login.url.searchParams.get('code_challenge')!;
    const res = await finish(browser, 'discord', login, github.authorize('judy', challenge));
    expect(res.body, res.text).toMatchObject({ success: true, data: { display_name: 'Discord judy' } });
    const sent = github.tokenBodies.at(-1)!;
    expect(createHash('sha256').update(sent.code_verifier!).digest('base64url')).toBe(challenge);
    expect(sent).toMatchObject({ client_id: 'dc-pkce-id', code: 'judy', grant_type: 'authorization_code' });

    // Another login's verifier does not open a code issued for this challenge; a GitHub state does not open Discord.
    const first = await start(browser, 'discord');
    const second = await start(browser, 'discord');
    const crossed = github.authorize('kim', first.url.searchParams.get('code_challenge')!);
    expect((await finish(browser, 'discord', second, crossed)).body).toEqual({
      success: false,
      message: 'Discord login failed: no access token',
    });
    const foreign = await start(browser, 'github');
    expect((await finish(browser, 'discord', foreign, 'any-code')).body).toEqual({ success: false, message: 'state is empty or invalid' });
  });

  it('answers a clear error for an unknown, disabled or unconfigured provider', async () => {
    expect((await gw.client().get('/api/oauth/nobody/authorize')).body).toEqual({ success: false, message: 'unknown login provider' });
    await root.put('/api/option/', { key: 'oidc.enabled', value: 'false' });
    expect((await gw.client().get('/api/oauth/oidc/authorize')).body).toEqual({
      success: false,
      message: 'the administrator has not enabled OIDC login',
    });
    await root.put('/api/option/', { key: 'oidc.enabled', value: 'true' });
    await root.put('/api/option/', { key: 'GitHubOAuthEnabled', value: 'false' });
    expect((await gw.client().get('/api/oauth/github/authorize')).body).toEqual({
      success: false,
      message: 'the administrator has not enabled GitHub login',
    });
    await root.put('/api/option/', { key: 'GitHubOAuthEnabled', value: 'true' });
  });
});
