import { api, type SiteStatus } from '@console/kit';

/** A built-in provider, or the slug of an admin-defined one (`/api/status` → `custom_oauth_providers`). */
export type OAuthProvider = 'github' | 'oidc' | 'linuxdo' | 'discord' | (string & {});

interface ConsoleBuiltLink {
  authorize: string;
  clientId(status: Partial<SiteStatus>): string | undefined;
  params: Record<string, string>;
}

/**
 * Providers whose link the console builds around a gateway state (new-api's way): Linux DO documents
 * no PKCE. GitHub and Discord accept it, so they go through the gateway's authorize link like OIDC.
 */
const CONSOLE_BUILT: Record<string, ConsoleBuiltLink> = {
  linuxdo: {
    authorize: 'https://connect.linux.do/oauth2/authorize',
    clientId: (s) => s.linuxdo_client_id,
    params: { response_type: 'code' },
  },
};

/** The provider authorize URL, with a state from the gateway that the callback proves. */
export async function startOAuth(provider: OAuthProvider, status: Partial<SiteStatus>, affCode?: string): Promise<void> {
  const built = CONSOLE_BUILT[provider];
  if (!built) {
    // OIDC, GitHub, Discord and custom providers: the gateway builds the link, keeping the PKCE verifier and the nonce on its side.
    const link = await api.get<{ url: string }>(`/api/oauth/${encodeURIComponent(provider)}/authorize`, { query: { aff: affCode } });
    window.location.assign(link.url);
    return;
  }
  const state = await api.get<string>('/api/oauth/state', { query: { aff: affCode } });
  const url = new URL(built.authorize);
  url.searchParams.set('client_id', built.clientId(status) ?? '');
  for (const [key, value] of Object.entries(built.params)) url.searchParams.set(key, value);
  url.searchParams.set('redirect_uri', `${window.location.origin}/oauth/${provider}`);
  url.searchParams.set('state', state);
  window.location.assign(url.href);
}
