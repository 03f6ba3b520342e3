import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { startOidcTestProvider, type OidcTestProvider } from '../support/oidc-provider.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const SERVER_ADDRESS = 'https://gw.example.com';
const SLUG = 'acme-sso';

describe.each(testDatabases())('custom OAuth providers and bindings on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let idp: OidcTestProvider;
  let providerId: number;
  let discord: { server: Server; base: string; forms: URLSearchParams[] };

  /** Discord's token and `/users/@me` endpoints, as the gateway calls them. */
  async function startFakeDiscord() {
    const forms: URLSearchParams[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/token') {
          const form = new URLSearchParams(body);
          forms.push(form);
          const ok = form.get('client_secret') === 'dc-secret' && form.get('grant_type') === 'authorization_code';
          return res.end(JSON.stringify(ok ? { access_token: `dc-${form.get('code')}` } : { error: 'invalid_client' }));
        }
        if (req.url === '/users/@me') {
          const code = String(req.headers.authorization ?? '').replace('Bearer dc-', '');
          return res.end(JSON.stringify({ id: `8000${code.length}`, username: `dc_${code}`, global_name: `Discord ${code}` }));
        }
        res.statusCode = 404;
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, forms };
  }

  /** A state from the gateway; the client sends its state cookie with the callback, as a browser does. */
  async function callback(client: ApiClient, account: string, slug = SLUG, code?: string) {
    const res = await client.get('/api/oauth/state');
    const state = res.body.data as string;
    const cookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('oauth_state='))!
      .split(';')[0]!;
    const authorization = code ?? (await idp.authorize(account, state));
    const saved = client.cookie;
    client.cookie = [saved, cookie].filter(Boolean).join('; ');
    try {
      return await client.get(`/api/oauth/${slug}?code=${encodeURIComponent(authorization)}&state=${state}`);
    } finally {
      if (client.cookie?.includes('oauth_state=')) client.cookie = saved;
    }
  }

  beforeAll(async () => {
    idp = await startOidcTestProvider({
      clientId: 'acme-client',
      clientSecret: 'acme-secret',
      redirectUri: `${SERVER_ADDRESS}/oauth/${SLUG}`,
    });
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    for (const [key, value] of [
      ['ServerAddress', SERVER_ADDRESS],
      ['AllowPrivateOutboundUrls', 'true'],
    ]) {
      expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    }
  });
  afterAll(async () => {
    await gw?.close();
    await idp?.close();
    await new Promise<void>((resolve) => (discord ? discord.server.close(() => resolve()) : resolve()));
  });

  it('signs in with Discord and records users.discord_id', async () => {
    discord = await startFakeDiscord();
    for (const [key, value] of [
      ['discord.enabled', 'true'],
      ['discord.client_id', 'dc-id'],
      ['discord.client_secret', 'dc-secret'],
      ['DiscordTokenUrl', `${discord.base}/token`],
      ['DiscordUserUrl', `${discord.base}/users/@me`],
    ]) {
      expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    }
    expect((await gw.client().get('/api/status')).body.data).toMatchObject({ discord_oauth: true, discord_client_id: 'dc-id' });
    const browser = gw.client();
    const login = await callback(browser, '', 'discord', 'abc');
    expect(login.body, login.text).toMatchObject({ success: true, data: { display_name: 'Discord abc' } });
    expect(discord.forms.at(-1)?.get('redirect_uri')).toBe(`${SERVER_ADDRESS}/oauth/discord`);
    browser.userId = login.body.data.id;
    expect((await browser.get('/api/user/self')).body.data.discord_id).toBe('80003');
    const again = await callback(gw.client(), '', 'discord', 'xyz');
    expect(again.body.data.id).toBe(login.body.data.id);
    // An admin removes the binding: the next Discord login is a new account.
    expect((await root.delete(`/api/user/${login.body.data.id}/bindings/discord`)).body.success).toBe(true);
    expect((await browser.get('/api/user/self')).body.data.discord_id).toBe('');
  });

  it('lets root discover, create, read and update a provider, never showing the secret', async () => {
    const discovery = await root.post('/api/custom-oauth-provider/discovery', {
      well_known_url: `${idp.issuer}/.well-known/openid-configuration`,
    });
    expect(discovery.body, discovery.text).toMatchObject({ success: true, data: { issuer: idp.issuer } });
    const found = discovery.body.data;
    expect(found.authorization_endpoint).toMatch(/\/auth$/);

    const bad = await root.post('/api/custom-oauth-provider', { name: 'Acme', slug: 'Bad Slug!', client_id: 'x' });
    expect(bad.body).toMatchObject({ success: false, message: 'provider slug must contain only lowercase letters, numbers, and hyphens' });
    expect((await root.post('/api/custom-oauth-provider', { name: 'Acme', slug: 'github', client_id: 'x' })).body.success).toBe(false);
    expect((await root.post('/api/custom-oauth-provider', { slug: 'x' })).body).toMatchObject({
      success: false,
      message: 'provider name is required',
    });

    const created = await root.post('/api/custom-oauth-provider', {
      name: 'Acme SSO',
      slug: SLUG,
      icon: 'acme',
      enabled: false,
      client_id: 'acme-client',
      client_secret: 'acme-secret',
      authorization_endpoint: found.authorization_endpoint,
      token_endpoint: found.token_endpoint,
      user_info_endpoint: found.user_info_endpoint,
      well_known: `${idp.issuer}/.well-known/openid-configuration`,
    });
    expect(created.body, created.text).toMatchObject({
      success: true,
      data: { slug: SLUG, client_secret_set: true, user_id_field: 'sub' },
    });
    expect(created.text).not.toContain('acme-secret');
    providerId = created.body.data.id;
    const dup = await root.post('/api/custom-oauth-provider', { ...created.body.data, slug: SLUG, client_secret: '' });
    expect(dup.body).toMatchObject({ success: false, message: 'the slug is already used by another provider' });

    // Disabled: not offered, and its callback refuses.
    expect((await gw.client().get('/api/status')).body.data.custom_oauth_providers).toBeUndefined();
    expect((await gw.client().get(`/api/oauth/${SLUG}?code=x&state=y`)).body).toMatchObject({
      success: false,
      message: 'the administrator has not enabled Acme SSO login',
    });

    // An update without a secret keeps the stored one.
    const updated = await root.put(`/api/custom-oauth-provider/${providerId}`, { ...created.body.data, enabled: true, client_secret: '' });
    expect(updated.body, updated.text).toMatchObject({ success: true, data: { enabled: true, client_secret_set: true } });
    expect((await root.get('/api/custom-oauth-provider')).body.data).toHaveLength(1);
    expect((await root.get(`/api/custom-oauth-provider/${providerId}`)).body.data.name).toBe('Acme SSO');
    expect((await root.get('/api/custom-oauth-provider/999')).body.success).toBe(false);

    const status = (await gw.client().get('/api/status')).body.data;
    expect(status.custom_oauth_providers).toEqual([
      {
        id: providerId,
        name: 'Acme SSO',
        slug: SLUG,
        icon: 'acme',
        client_id: 'acme-client',
        authorization_endpoint: found.authorization_endpoint,
        scopes: 'openid profile email',
      },
    ]);
  });

  it('signs up and signs in with the provider against a real OIDC server', async () => {
    const browser = gw.client();
    const first = await callback(browser, 'carla');
    expect(first.body, first.text).toMatchObject({ success: true, data: { display_name: 'OIDC carla', role: 1 } });
    browser.userId = first.body.data.id;
    const bindings = await browser.get('/api/user/oauth/bindings');
    expect(bindings.body.data).toEqual([
      expect.objectContaining({ provider_id: providerId, provider_name: 'Acme SSO', provider_slug: SLUG, provider_user_id: 'carla' }),
    ]);
    const again = gw.client();
    expect((await callback(again, 'carla')).body.data.id).toBe(first.body.data.id);
  });

  it('binds an existing account, refuses an account bound elsewhere, and unbinds', async () => {
    expect((await root.post('/api/user', { username: 'bind_me', password: 'secret-pass-1' })).body.success).toBe(true);
    const user = gw.client();
    await user.login('bind_me', 'secret-pass-1');
    const bound = await callback(user, 'dora');
    expect(bound.body, bound.text).toMatchObject({ success: true, message: 'bind' });
    expect((await user.get('/api/user/oauth/bindings')).body.data[0].provider_user_id).toBe('dora');
    const login = await callback(gw.client(), 'dora');
    expect(login.body.data.username).toBe('bind_me');

    // carla's provider account already belongs to the user created above.
    const stolen = await callback(user, 'carla');
    expect(stolen.body).toMatchObject({ success: false, message: 'this Acme SSO account is already bound to another user' });

    const unbound = await user.delete(`/api/user/oauth/bindings/${providerId}`);
    expect(unbound.body.success).toBe(true);
    expect((await user.get('/api/user/oauth/bindings')).body.data).toEqual([]);
    expect((await user.delete(`/api/user/oauth/bindings/${providerId}`)).body.success).toBe(false);
    // Unbound: dora's next login signs up a new account instead.
    const fresh = await callback(gw.client(), 'dora');
    expect(fresh.body.data.username).not.toBe('bind_me');
  });

  it('gives admins the bindings of a user, built-in unbinding and hard delete', async () => {
    expect((await root.post('/api/user', { username: 'victim', password: 'secret-pass-1' })).body.success).toBe(true);
    const user = gw.client();
    const login = await user.login('victim', 'secret-pass-1');
    const id = login.body.data.id as number;
    expect((await callback(user, 'erik')).body.message).toBe('bind');

    const list = await root.get(`/api/user/${id}/oauth/bindings`);
    expect(list.body.data).toHaveLength(1);
    expect((await root.delete(`/api/user/${id}/oauth/bindings/${providerId}`)).body.success).toBe(true);
    expect((await root.get(`/api/user/${id}/oauth/bindings`)).body.data).toEqual([]);

    expect((await root.delete(`/api/user/${id}/bindings/github`)).body).toMatchObject({
      success: false,
      message: 'the user has no such binding',
    });
    expect((await root.delete(`/api/user/${id}/bindings/myspace`)).body.success).toBe(false);
    expect((await user.delete(`/api/user/${root.userId}`)).body.success).toBe(false);
    expect((await root.delete(`/api/user/${root.userId}`)).body.success).toBe(false);

    const deleted = await root.delete(`/api/user/${id}`);
    expect(deleted.body, deleted.text).toMatchObject({ success: true });
    expect((await user.get('/api/user/self')).status).toBe(401);
    expect((await root.get(`/api/user/${id}`)).body.success).toBe(false);
    expect((await root.delete(`/api/user/${id}`)).body.success).toBe(false);
    // The name is free again after a hard delete.
    expect((await root.post('/api/user', { username: 'victim', password: 'secret-pass-1' })).body.success).toBe(true);
  });

  it('deletes a provider with its bindings', async () => {
    const removed = await root.delete(`/api/custom-oauth-provider/${providerId}`);
    expect(removed.body.success).toBe(true);
    expect((await root.get('/api/custom-oauth-provider')).body.data).toEqual([]);
    expect((await gw.client().get(`/api/oauth/${SLUG}?code=x&state=y`)).body).toMatchObject({
      success: false,
      message: 'unknown login provider',
    });
    expect((await gw.client().get('/api/custom-oauth-provider')).status).toBe(401);
  });
});
