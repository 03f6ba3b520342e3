import { api, type SiteStatus } from '@console/kit';

/** A built-in provider, or the slug of an admin-defined one (`/api/status` → `custom_oauth_providers`). */
export type OAuthProvider = 'github' | 'oidc' | 'linuxdo' | 'discord' | (string & {});

/** The provider authorize URL, with a state from the gateway that the callback proves. */
export async function startOAuth(provider: OAuthProvider, status: Partial<SiteStatus>, affCode?: string): Promise<void> {
  const state = await api.get<string>('/api/oauth/state', { query: { aff: affCode } });
  const callback = `${window.location.origin}/oauth/${provider}`;
  let url: URL;
  if (provider === 'github') {
    url = new URL('https://github.com/login/oauth/authorize');
    url.searchParams.set('client_id', status.github_client_id ?? '');
    url.searchParams.set('scope', 'user:email');
  } else if (provider === 'oidc') {
    url = new URL(status.oidc_authorization_endpoint ?? '');
    url.searchParams.set('client_id', status.oidc_client_id ?? '');
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', 'openid profile email');
  } else if (provider === 'linuxdo') {
    url = new URL('https://connect.linux.do/oauth2/authorize');
    url.searchParams.set('client_id', status.linuxdo_client_id ?? '');
    url.searchParams.set('response_type', 'code');
  } else if (provider === 'discord') {
    url = new URL('https://discord.com/oauth2/authorize');
    url.searchParams.set('client_id', status.discord_client_id ?? '');
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', 'identify');
  } else {
    const custom = status.custom_oauth_providers?.find((p) => p.slug === provider);
    if (!custom) return;
    url = new URL(custom.authorization_endpoint);
    url.searchParams.set('client_id', custom.client_id);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', custom.scopes || 'openid profile email');
  }
  url.searchParams.set('redirect_uri', callback);
  url.searchParams.set('state', state);
  window.location.assign(url.href);
}
