import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { ROOT, setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Threat Z4 (GHSA-p845-629j-rcj6): an admin acting on a user of the same or a higher role. Every admin route
 * that names a user by id must refuse an admin acting on root, on another admin and on itself, and let root
 * act on an admin (and an admin on a regular user, so a refusal is the role rule, not a broken route).
 * `POST /api/user/manage` and `PUT /api/user/` are covered in accounts-admin.e2e.test.ts.
 */
const PASSWORD = 'password-123';
/** The gateway's refusals for a target of the same or a higher role (one wording per module). */
const SAME_OR_HIGHER = /^no permission to .+ (of )?(a )?user(s)? (of|with) the same or (a )?higher role$/;

type Who = 'root' | 'adam' | 'abe' | 'ulla';

interface TargetState {
  exists: boolean;
  twoFa: number;
  passkeys: number;
  github: string | null;
  sso: number;
}

describe.each(testDatabases())('threat Z4: admin routes on users of the same or a higher role on %s', (kind) => {
  let gw: TestGateway;
  let ds: DataSource;
  let root: ApiClient;
  /** The acting admin. */
  let adam: ApiClient;
  let providerId: number;
  const ids = {} as Record<Who, number>;

  async function newUser(username: string, admin: boolean): Promise<number> {
    const created = await root.post('/api/user/', { username, password: PASSWORD });
    expect(created.body.success, created.text).toBe(true);
    const row = (await root.get(`/api/user/search?keyword=${username}`)).body.data.items.find(
      (u: { username: string }) => u.username === username,
    );
    if (admin) expect((await root.post('/api/user/manage', { id: row.id, action: 'promote' })).body.data).toEqual({ status: 1, role: 10 });
    return row.id as number;
  }

  /** Gives a user everything an admin route can remove: 2FA, a passkey, a GitHub binding and a custom OAuth binding. */
  async function arm(who: Who): Promise<void> {
    const userId = ids[who];
    const tag = `${who}-${randomBytes(4).toString('hex')}`;
    if (!(await ds.getRepository('two_fas').countBy({ userId }))) {
      // A plain base32 secret, as new-api stores it (read as is).
      await ds.getRepository('two_fas').insert({ userId, secret: 'JBSWY3DPEHPK3PXP', isEnabled: true, failedAttempts: 0 });
      await ds.getRepository('two_fa_backup_codes').insert({ userId, codeHash: `hash-${tag}`, isUsed: false });
    }
    if (!(await ds.getRepository('passkey_credentials').countBy({ userId })))
      await ds
        .getRepository('passkey_credentials')
        .insert({ userId, credentialId: Buffer.from(`cred-${tag}`).toString('base64'), publicKey: 'AAAA' });
    await ds.getRepository('users').update(userId, { githubId: `gh-${who}` });
    if (!(await ds.getRepository('user_oauth_bindings').countBy({ userId, providerId })))
      await ds.getRepository('user_oauth_bindings').insert({ userId, providerId, providerUserId: `sso-${who}` });
  }

  async function state(who: Who): Promise<TargetState> {
    const userId = ids[who];
    const user = (await ds.getRepository('users').findOne({ where: { id: userId }, withDeleted: true })) as {
      githubId: string | null;
    } | null;
    return {
      exists: !!user,
      twoFa: await ds.getRepository('two_fas').countBy({ userId, isEnabled: true }),
      passkeys: await ds.getRepository('passkey_credentials').countBy({ userId }),
      github: user?.githubId ?? null,
      sso: await ds.getRepository('user_oauth_bindings').countBy({ userId }),
    };
  }

  const ARMED = (who: Who): TargetState => ({ exists: true, twoFa: 1, passkeys: 1, github: `gh-${who}`, sso: 1 });

  /** A role refusal: success:false with the same-or-higher wording, and nothing of the target in the answer. */
  function expectRoleRefusal(res: ApiResponse, target: Who, what: string) {
    expect(res.status, what).toBeLessThan(500);
    expect(res.body?.success, `${what}: ${res.text}`).toBe(false);
    expect(res.body.message, what).toMatch(SAME_OR_HIGHER);
    expect(res.body.data, what).toBeUndefined();
    expect(res.text, what).not.toContain(`gh-${target}`);
    expect(res.text, what).not.toContain(`sso-${target}`);
  }

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
    ds = gw.gateway.app.get(DataSource);
    ids.root = root.userId!;
    ids.adam = await newUser('z4_adam', true);
    ids.abe = await newUser('z4_abe', true);
    ids.ulla = await newUser('z4_ulla', false);
    adam = gw.client();
    expect((await adam.login('z4_adam', PASSWORD)).body.success).toBe(true);

    const provider = await root.post('/api/custom-oauth-provider', {
      name: 'Z4 SSO',
      slug: 'z4-sso',
      client_id: 'z4-client',
      authorization_endpoint: 'https://sso.example/auth',
      token_endpoint: 'https://sso.example/token',
      user_info_endpoint: 'https://sso.example/userinfo',
    });
    expect(provider.body.success, provider.text).toBe(true);
    providerId = provider.body.data.id;
    for (const who of ['root', 'adam', 'abe', 'ulla'] as const) await arm(who);
    for (const who of ['root', 'adam', 'abe', 'ulla'] as const) expect(await state(who)).toEqual(ARMED(who));
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('GET /api/user/:id: an admin reads regular users only; root reads an admin', async () => {
    for (const target of ['root', 'abe', 'adam'] as const) {
      const res = await adam.get(`/api/user/${ids[target]}`);
      expectRoleRefusal(res, target, `admin -> ${target}`);
      expect(res.text).not.toContain(`z4_${target}`);
      if (target === 'root') expect(res.text).not.toContain(ROOT.username);
    }
    expect((await adam.get(`/api/user/${ids.ulla}`)).body).toMatchObject({ success: true, data: { id: ids.ulla, role: 1 } });
    expect((await root.get(`/api/user/${ids.abe}`)).body).toMatchObject({
      success: true,
      data: { id: ids.abe, username: 'z4_abe', role: 10 },
    });
  });

  it('GET /api/user/:id/oauth/bindings: refused on root and admins, allowed to root on an admin', async () => {
    for (const target of ['root', 'abe', 'adam'] as const) {
      expectRoleRefusal(await adam.get(`/api/user/${ids[target]}/oauth/bindings`), target, `admin -> ${target}`);
    }
    const own = await adam.get(`/api/user/${ids.ulla}/oauth/bindings`);
    expect(own.body.data).toEqual([expect.objectContaining({ provider_id: providerId, provider_user_id: 'sso-ulla' })]);
    const byRoot = await root.get(`/api/user/${ids.abe}/oauth/bindings`);
    expect(byRoot.body, byRoot.text).toMatchObject({ success: true });
    expect(byRoot.body.data).toEqual([expect.objectContaining({ provider_id: providerId, provider_user_id: 'sso-abe' })]);
  });

  it('DELETE /api/user/:id/reset_passkey: refused on root and admins (passkeys kept), allowed to root on an admin', async () => {
    for (const target of ['root', 'abe', 'adam'] as const) {
      expectRoleRefusal(await adam.delete(`/api/user/${ids[target]}/reset_passkey`), target, `admin -> ${target}`);
      expect((await state(target)).passkeys, target).toBe(1);
    }
    // The refused calls touched nothing else either.
    for (const target of ['root', 'abe', 'adam'] as const) expect(await state(target)).toEqual(ARMED(target));

    expect((await adam.delete(`/api/user/${ids.ulla}/reset_passkey`)).body.success).toBe(true);
    expect((await state('ulla')).passkeys).toBe(0);
    const byRoot = await root.delete(`/api/user/${ids.abe}/reset_passkey`);
    expect(byRoot.body, byRoot.text).toMatchObject({ success: true });
    expect((await state('abe')).passkeys).toBe(0);
    expect((await state('root')).passkeys).toBe(1);
    await arm('abe');
    await arm('ulla');
  });

  it('DELETE /api/user/:id/2fa: refused on root and admins (2FA kept), allowed to root on an admin', async () => {
    for (const target of ['root', 'abe', 'adam'] as const) {
      expectRoleRefusal(await adam.delete(`/api/user/${ids[target]}/2fa`), target, `admin -> ${target}`);
      expect((await state(target)).twoFa, target).toBe(1);
    }
    for (const target of ['root', 'abe', 'adam'] as const) expect(await state(target)).toEqual(ARMED(target));
    // Root's own view still shows 2FA on, and its password alone no longer logs it in.
    expect((await root.get('/api/user/2fa/status')).body.data).toMatchObject({ enabled: true });
    expect((await gw.client().post('/api/user/login', ROOT)).body.data).toEqual({ require_2fa: true });
    // The admin's session survived its refused attempt on itself.
    expect((await adam.get('/api/user/self')).body.data.username).toBe('z4_adam');

    expect((await adam.delete(`/api/user/${ids.ulla}/2fa`)).body.success).toBe(true);
    expect((await state('ulla')).twoFa).toBe(0);
    const byRoot = await root.delete(`/api/user/${ids.abe}/2fa`);
    expect(byRoot.body, byRoot.text).toMatchObject({ success: true });
    expect((await state('abe')).twoFa).toBe(0);
    expect((await state('root')).twoFa).toBe(1);
    await arm('abe');
    await arm('ulla');
  });

  it('DELETE /api/user/:id/bindings/:binding_type: refused on root and admins (binding kept), allowed to root on an admin', async () => {
    for (const target of ['root', 'abe', 'adam'] as const) {
      for (const type of ['github', 'GitHub']) {
        expectRoleRefusal(await adam.delete(`/api/user/${ids[target]}/bindings/${type}`), target, `admin -> ${target} ${type}`);
      }
      // Refused before the binding check: a binding the target lacks answers the same, no oracle.
      expectRoleRefusal(await adam.delete(`/api/user/${ids[target]}/bindings/discord`), target, `admin -> ${target} discord`);
      expect((await state(target)).github, target).toBe(`gh-${target}`);
    }
    for (const target of ['root', 'abe', 'adam'] as const) expect(await state(target)).toEqual(ARMED(target));

    expect((await adam.delete(`/api/user/${ids.ulla}/bindings/github`)).body.success).toBe(true);
    expect((await state('ulla')).github).toBeNull();
    const byRoot = await root.delete(`/api/user/${ids.abe}/bindings/github`);
    expect(byRoot.body, byRoot.text).toMatchObject({ success: true });
    expect((await state('abe')).github).toBeNull();
    expect((await state('root')).github).toBe('gh-root');
    await arm('abe');
    await arm('ulla');
  });

  it('DELETE /api/user/:id/oauth/bindings/:provider_id: refused on root and admins (binding kept), allowed to root on an admin', async () => {
    for (const target of ['root', 'abe', 'adam'] as const) {
      expectRoleRefusal(await adam.delete(`/api/user/${ids[target]}/oauth/bindings/${providerId}`), target, `admin -> ${target}`);
      expectRoleRefusal(
        await adam.delete(`/api/user/${ids[target]}/oauth/bindings/${providerId + 999}`),
        target,
        `admin -> ${target} unknown`,
      );
      expect((await state(target)).sso, target).toBe(1);
    }
    for (const target of ['root', 'abe', 'adam'] as const) expect(await state(target)).toEqual(ARMED(target));

    expect((await adam.delete(`/api/user/${ids.ulla}/oauth/bindings/${providerId}`)).body.success).toBe(true);
    expect((await state('ulla')).sso).toBe(0);
    const byRoot = await root.delete(`/api/user/${ids.abe}/oauth/bindings/${providerId}`);
    expect(byRoot.body, byRoot.text).toMatchObject({ success: true });
    expect((await state('abe')).sso).toBe(0);
    expect((await state('root')).sso).toBe(1);
    await arm('abe');
    await arm('ulla');
  });

  it('DELETE /api/user/:id (hard delete): refused on root and admins (all kept), allowed to root on an admin', async () => {
    for (const target of ['root', 'abe'] as const) {
      expectRoleRefusal(await adam.delete(`/api/user/${ids[target]}`), target, `admin -> ${target}`);
      expect(await state(target)).toEqual(ARMED(target));
    }
    // On itself: refused too (its own wording).
    const self = await adam.delete(`/api/user/${ids.adam}`);
    expect(self.body).toMatchObject({ success: false });
    expect(await state('adam')).toEqual(ARMED('adam'));
    expect((await adam.get('/api/user/self')).body.data.username).toBe('z4_adam');
    // Root and the other admin still sign in (with their password; root is then asked for its code).
    expect((await gw.client().post('/api/user/login', ROOT)).body.data).toEqual({ require_2fa: true });
    expect((await root.get('/api/user/self')).body.data).toMatchObject({ id: ids.root, role: 100 });

    const user = await adam.delete(`/api/user/${ids.ulla}`);
    expect(user.body, user.text).toMatchObject({ success: true });
    expect((await state('ulla')).exists).toBe(false);

    const byRoot = await root.delete(`/api/user/${ids.abe}`);
    expect(byRoot.body, byRoot.text).toMatchObject({ success: true });
    expect(await state('abe')).toEqual({ exists: false, twoFa: 0, passkeys: 0, github: null, sso: 0 });
    expect((await gw.client().login('z4_abe', PASSWORD)).body.success).toBe(false);
    expect(await state('root')).toEqual(ARMED('root'));
    expect(await state('adam')).toEqual(ARMED('adam'));
  });
});
