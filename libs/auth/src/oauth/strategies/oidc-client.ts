import { Injectable } from '@nestjs/common';
import type * as OpenId from 'openid-client';
import { BusinessError, onFirstUse } from '@gw/core';
import { OptionService } from '@gw/option';
import type { CustomOAuthProviderEntity } from '../../custom-oauth/custom-oauth.entity.js';
import { ProviderHttp } from '../provider-http.js';

/** openid-client and its JOSE stack, loaded by the first OpenID Connect login (see onFirstUse). */
const openIdClient = onFirstUse(() => import('openid-client'));

/** A provider's openid-client configuration, with the library to run the grant with. */
export interface OpenIdSession {
  client: typeof OpenId;
  config: OpenId.Configuration;
}

interface DiscoveryDocument {
  issuer?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  userinfo_endpoint?: string;
  [key: string]: unknown;
}

export interface OidcSettings {
  /** Known only through discovery; without it the ID token cannot be checked and the plain OAuth 2 exchange is used. */
  issuer?: string;
  authorization: string;
  token: string;
  userinfo: string;
  document: DiscoveryDocument;
}

/**
 * The built-in OIDC provider's settings, and openid-client configurations whose every request goes
 * through the outbound guard (`customFetch`).
 */
@Injectable()
export class OidcClients {
  constructor(
    private readonly http: ProviderHttp,
    private readonly options: OptionService,
  ) {}

  /** Explicit endpoint options win; the well-known document fills the blanks (and gives the issuer). */
  async builtIn(): Promise<OidcSettings> {
    let authorization = this.options.get('oidc.authorization_endpoint');
    let token = this.options.get('oidc.token_endpoint');
    let userinfo = this.options.get('oidc.user_info_endpoint');
    const wellKnown = this.options.get('oidc.well_known');
    let document: DiscoveryDocument = {};
    if (wellKnown) {
      document = await this.http.json<DiscoveryDocument>(wellKnown);
      const text = (value: unknown) => (typeof value === 'string' ? value : '');
      authorization ||= text(document.authorization_endpoint);
      token ||= text(document.token_endpoint);
      userinfo ||= text(document.userinfo_endpoint);
    }
    if (!token || !userinfo) throw new BusinessError('OIDC is not configured');
    const issuer = typeof document.issuer === 'string' && document.issuer ? document.issuer : undefined;
    return { issuer, authorization, token, userinfo, document };
  }

  /**
   * A custom provider that is OpenID Connect: it asks for the `openid` scope and its discovery document
   * names an issuer, so its ID token can be checked (signature, issuer, audience, nonce). Its own
   * endpoint fields win over the document's, as for the built-in provider.
   */
  async custom(provider: CustomOAuthProviderEntity): Promise<(OidcSettings & { issuer: string }) | undefined> {
    if (!provider.wellKnown || !(provider.scopes || '').split(/\s+/).includes('openid')) return undefined;
    const document = await this.http.json<DiscoveryDocument>(provider.wellKnown);
    if (typeof document.issuer !== 'string' || !document.issuer) return undefined;
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    return {
      issuer: document.issuer,
      authorization: provider.authorizationEndpoint || text(document.authorization_endpoint),
      token: provider.tokenEndpoint || text(document.token_endpoint),
      userinfo: provider.userInfoEndpoint || text(document.userinfo_endpoint),
      document,
    };
  }

  /** An openid-client configuration for a provider whose issuer is known. */
  async configuration(
    settings: OidcSettings & { issuer: string },
    clientId: string,
    secret: string,
    secretInForm = false,
  ): Promise<OpenIdSession> {
    const client = await openIdClient();
    // The console's callback page forwards code and state only; without `iss` the RFC 9207 check cannot run.
    const { authorization_response_iss_parameter_supported: _iss, ...document } = settings.document;
    const metadata: OpenId.ServerMetadata = {
      ...document,
      issuer: settings.issuer,
      authorization_endpoint: settings.authorization,
      token_endpoint: settings.token,
      userinfo_endpoint: settings.userinfo,
    };
    const auth = secretInForm ? client.ClientSecretPost(secret) : client.ClientSecretBasic(secret);
    const config = new client.Configuration(metadata, clientId, secret, auth);
    config[client.customFetch] = this.http.fetch as never;
    // The outbound guard decides which addresses are reachable; new-api also accepts http providers.
    client.allowInsecureRequests(config);
    return { client, config };
  }
}
