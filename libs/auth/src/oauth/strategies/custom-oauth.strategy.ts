import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passportCustom from 'passport-custom';
import { BusinessError } from '@gw/core';
import { CustomOAuthAdminService } from '../../custom-oauth/custom-oauth-admin.service.js';
import type { CustomOAuthProviderEntity } from '../../custom-oauth/custom-oauth.entity.js';
import { CustomOAuthRepository } from '../../custom-oauth/custom-oauth.repository.js';
import { type ExternalIdentity, type ProvenIdentity, str } from '../identity.js';
import { OAuthStateStore, type OAuthStateRecord } from '../oauth-state.js';
import { ProviderHttp } from '../provider-http.js';
import { CodeCallback } from './code-callback.js';
import { OidcClients } from './oidc-client.js';

/** `data.user.id` style paths into the userinfo document. */
export function pick(doc: unknown, path: string): string | undefined {
  let value: unknown = doc;
  for (const part of path.split('.').filter(Boolean)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  if (typeof value === 'string') return value || undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * An admin-defined OAuth 2 / OIDC provider (`custom`, route `GET /api/oauth/:provider`): the code is
 * exchanged with the client auth style the admin chose, plus the PKCE verifier when the provider has
 * its PKCE switch on; the account id and names come from the configured userinfo fields.
 */
@Injectable()
export class CustomOAuthStrategy extends PassportStrategy(passportCustom.Strategy, 'custom') {
  constructor(
    private readonly repo: CustomOAuthRepository,
    private readonly admin: CustomOAuthAdminService,
    private readonly states: OAuthStateStore,
    private readonly callback: CodeCallback,
    private readonly http: ProviderHttp,
    private readonly oidc: OidcClients,
  ) {
    super();
  }

  async validate(req: Request): Promise<ProvenIdentity> {
    const slug = str(req.params.provider).slice(0, 64).toLowerCase();
    const provider = await this.repo.findBySlug(slug);
    if (!provider) throw new BusinessError('unknown login provider');
    if (!provider.enabled) throw new BusinessError(`the administrator has not enabled ${provider.name} login`);
    const state = str(req.query.state);
    const record = await this.states.consume(req, state, provider.slug);
    // With PKCE on, only a login the gateway started (and so holds a verifier for) can finish.
    if (provider.pkceEnabled && !record.verifier) throw new BusinessError('state is empty or invalid');
    const code = str(req.query.code);
    if (!code) throw new BusinessError('the authorization code is empty');
    const identity = await this.fetchIdentity(provider, code, state, record);
    return { provider: 'custom', custom: provider, identity, aff: record.aff };
  }

  private async fetchIdentity(
    provider: CustomOAuthProviderEntity,
    code: string,
    state: string,
    record: OAuthStateRecord,
  ): Promise<ExternalIdentity> {
    const clientId = provider.clientId ?? '';
    const secret = provider.clientSecret ? this.admin.box.open(provider.clientSecret) : '';
    if (secret === undefined) throw new BusinessError('the client secret cannot be read (was CRYPTO_SECRET changed?); enter it again');
    const accessToken = record.nonce
      ? await this.openIdExchange(provider, clientId, secret, code, state, record)
      : await this.plainExchange(provider, clientId, secret, code, record.verifier);
    const info = await this.http.json<unknown>(this.endpoint(provider, provider.userInfoEndpoint), {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    });
    const id = pick(info, provider.userIdField || 'sub');
    if (!id) throw new BusinessError(`${provider.name} login failed: the user info has no "${provider.userIdField}"`);
    return {
      id: id.slice(0, 256),
      username: pick(info, provider.usernameField),
      displayName: pick(info, provider.displayNameField),
      email: pick(info, provider.emailField),
    };
  }

  /**
   * The link carried a nonce (an OpenID Connect provider, see OidcClients.custom): openid-client makes
   * the exchange and checks the ID token's signature, issuer, audience, expiry and that nonce. OIDC
   * Core has the token response of an `openid` code grant always carry an ID token, so none is refused.
   */
  private async openIdExchange(
    provider: CustomOAuthProviderEntity,
    clientId: string,
    secret: string,
    code: string,
    state: string,
    record: OAuthStateRecord,
  ): Promise<string> {
    const settings = await this.oidc.custom(provider);
    if (!settings) throw new BusinessError(`${provider.name} login failed: its discovery document no longer names an issuer`);
    const { client, config } = await this.oidc.configuration(settings, clientId, secret, provider.authStyle === 1);
    const callbackUrl = new URL(this.callback.redirectUri(provider.slug));
    callbackUrl.searchParams.set('code', code);
    callbackUrl.searchParams.set('state', state);
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        expectedState: state,
        pkceCodeVerifier: record.verifier,
        expectedNonce: record.nonce,
        idTokenExpected: true,
      });
      return tokens.access_token;
    } catch (error) {
      // openid-client wraps the precise reason (which ID token claim failed) as the cause.
      const cause = (error as { cause?: unknown }).cause;
      throw new BusinessError(`${provider.name} login failed: ${(cause instanceof Error ? cause : (error as Error)).message}`);
    }
  }

  private async plainExchange(
    provider: CustomOAuthProviderEntity,
    clientId: string,
    secret: string,
    code: string,
    verifier?: string,
  ): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: this.callback.redirectUri(provider.slug) });
    if (verifier) form.set('code_verifier', verifier);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (provider.authStyle === 1) {
      form.set('client_id', clientId);
      form.set('client_secret', secret);
    } else {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    }
    const token = await this.http.json<{ access_token?: string }>(this.endpoint(provider, provider.tokenEndpoint), {
      method: 'POST',
      headers,
      body: form.toString(),
    });
    if (!token.access_token) throw new BusinessError(`${provider.name} login failed: no access token`);
    return token.access_token;
  }

  private endpoint(provider: CustomOAuthProviderEntity, url: string | null): string {
    if (!url) throw new BusinessError(`${provider.name} is not fully configured`);
    return url;
  }
}
