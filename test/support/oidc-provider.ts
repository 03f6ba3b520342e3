import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OidcTestProvider {
  issuer: string;
  /** Signs in as `account` in a fresh browser and returns the authorization code sent to `redirectUri`. */
  authorize(account: string, state: string, extra?: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

/** A real OpenID Provider (the `oidc-provider` package) on loopback, with a scripted login form. */
export async function startOidcTestProvider(client: {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  pkce?: boolean;
}): Promise<OidcTestProvider> {
  const { default: Provider } = (await import('oidc-provider' as string)) as { default: any };
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as AddressInfo).port;
  await new Promise<void>((resolve) => holder.close(() => resolve()));
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [client.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, preferred_username: id, name: `OIDC ${id}`, email: `${id}@idp.example` }),
    }),
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'] },
    pkce: { required: () => client.pkce === true },
    loadExistingGrant: async (ctx: any) => {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid profile email');
      await grant.save();
      return grant;
    },
  });
  const server: Server = provider.listen(port, '127.0.0.1');

  async function authorize(account: string, state: string, extra: Record<string, string> = {}): Promise<string> {
    const jar = new Map<string, string>();
    const go = async (url: string, init: RequestInit = {}) => {
      const headers = { ...(init.headers as Record<string, string>), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
      const res = await fetch(url, { ...init, headers, redirect: 'manual' });
      for (const c of res.headers.getSetCookie()) {
        const [kv] = c.split(';');
        const i = kv!.indexOf('=');
        jar.set(kv!.slice(0, i), kv!.slice(i + 1));
      }
      return res;
    };
    const query = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: 'code',
      scope: 'openid profile email',
      state,
      ...extra,
    });
    let res = await go(`${issuer}/auth?${query}`);
    res = await go(new URL(res.headers.get('location')!, issuer).toString());
    const action = (await res.text()).match(/action="([^"]+)"/)![1]!;
    res = await go(new URL(action, issuer).toString(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `prompt=login&login=${account}&password=x`,
    });
    for (let i = 0; i < 6; i++) {
      const location = res.headers.get('location')!;
      if (location.startsWith(client.redirectUri)) return new URL(location).searchParams.get('code')!;
      res = await go(new URL(location, issuer).toString());
    }
    throw new Error('OIDC authorization did not finish');
  }
  return { issuer, authorize, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
