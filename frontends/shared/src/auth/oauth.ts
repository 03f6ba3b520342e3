import { api } from '../api/client';
import type { SiteStatus } from '../status/status-store';

export type OAuthProvider = 'github' | 'oidc' | 'linuxdo';

/**
 * Sends the browser to the provider's authorize URL with a state from the gateway that the callback
 * proves. The same flow logs in (no session) or binds the account (an existing session), so the
 * login page and the personal page's bindings both start here.
 */
export async function startOAuth(provider: OAuthProvider, status: Partial<SiteStatus>, affCode?: string): Promise<void> {
  // OIDC and GitHub: the gateway builds the link, keeping the PKCE verifier and the nonce on its side.
  if (provider === 'oidc' || provider === 'github') {
    const link = await api.get<{ url: string }>(`/api/oauth/${encodeURIComponent(provider)}/authorize`, { query: { aff: affCode } });
    window.location.assign(link.url);
    return;
  }
  const state = await api.get<string>('/api/oauth/state', { query: { aff: affCode } });
  const callback = `${window.location.origin}/oauth/${provider}`;
  const url = new URL('https://connect.linux.do/oauth2/authorize');
  url.searchParams.set('client_id', status.linuxdo_client_id ?? '');
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', callback);
  url.searchParams.set('state', state);
  window.location.assign(url.href);
}
