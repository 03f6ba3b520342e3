import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passportCustom from 'passport-custom';
import { BusinessError } from '@gw/core';
import { OptionService } from '@gw/option';
import { type ExternalIdentity, type ProvenIdentity, str } from '../identity.js';
import type { OAuthStateRecord } from '../oauth-state.js';
import { ProviderHttp } from '../provider-http.js';
import { CodeCallback } from './code-callback.js';
import { OidcClients, type OidcSettings } from './oidc-client.js';

interface OidcClaims {
  sub?: unknown;
  preferred_username?: unknown;
  name?: unknown;
  email?: unknown;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

function identityOf(claims: OidcClaims): ExternalIdentity {
  const id = text(claims.sub) ?? (typeof claims.sub === 'number' ? String(claims.sub) : undefined);
  if (!id) throw new BusinessError('OIDC login failed: no subject');
  const username = text(claims.preferred_username);
  return { id, username, displayName: text(claims.name) || username, email: text(claims.email) };
}

/**
 * OpenID Connect (`oidc`) on openid-client: the code grant with the PKCE verifier and the nonce the
 * gateway's own authorize link carried, ID token checks (issuer, audience, expiry, nonce), then userinfo
 * for the same subject. A provider configured without discovery gets the plain OAuth 2 exchange.
 */
@Injectable()
export class OidcStrategy extends PassportStrategy(passportCustom.Strategy, 'oidc') {
  constructor(
    private readonly callback: CodeCallback,
    private readonly clients: OidcClients,
    private readonly http: ProviderHttp,
    private readonly options: OptionService,
  ) {
    super();
  }

  async validate(req: Request): Promise<ProvenIdentity> {
    const { code, state, record } = await this.callback.open(req, 'oidc');
    const settings = await this.clients.builtIn();
    const claims = settings.issuer
      ? await this.withOpenIdClient({ ...settings, issuer: settings.issuer }, code, state, str(req.query.iss), record)
      : await this.withPlainExchange(settings, code, record);
    return { provider: 'oidc', aff: record.aff, identity: identityOf(claims) };
  }

  private redirectUri(): string {
    if (!this.options.get('ServerAddress')) throw new BusinessError('the server address (ServerAddress) is not configured');
    return this.callback.redirectUri('oidc');
  }

  private async withOpenIdClient(
    settings: OidcSettings & { issuer: string },
    code: string,
    state: string,
    iss: string,
    record: OAuthStateRecord,
  ): Promise<OidcClaims> {
    const { client, config } = await this.clients.configuration(
      settings,
      this.options.get('oidc.client_id'),
      this.options.get('oidc.client_secret'),
    );
    const callbackUrl = new URL(this.redirectUri());
    callbackUrl.searchParams.set('code', code);
    callbackUrl.searchParams.set('state', state);
    if (iss) callbackUrl.searchParams.set('iss', iss);
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        expectedState: state,
        pkceCodeVerifier: record.verifier,
        expectedNonce: record.nonce,
        idTokenExpected: record.nonce !== undefined,
      });
      const idClaims = tokens.claims();
      const info = await client.fetchUserInfo(config, tokens.access_token, idClaims?.sub ?? client.skipSubjectCheck);
      return { ...idClaims, ...info };
    } catch (error) {
      if (error instanceof BusinessError) throw error;
      // openid-client wraps the precise reason (which ID token claim failed: nonce, aud, iss…) as the cause.
      const cause = (error as { cause?: unknown }).cause;
      throw new BusinessError(`OIDC login failed: ${(cause instanceof Error ? cause : (error as Error)).message}`);
    }
  }

  private async withPlainExchange(settings: OidcSettings, code: string, record: OAuthStateRecord): Promise<OidcClaims> {
    const basic = Buffer.from(
      `${encodeURIComponent(this.options.get('oidc.client_id'))}:${encodeURIComponent(this.options.get('oidc.client_secret'))}`,
    ).toString('base64');
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: this.callback.redirectUri('oidc') });
    if (record.verifier) form.set('code_verifier', record.verifier);
    const token = await this.http.json<{ access_token?: string }>(settings.token, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
      body: form.toString(),
    });
    if (!token.access_token) throw new BusinessError('OIDC login failed: no access token');
    return this.http.json<OidcClaims>(settings.userinfo, {
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' },
    });
  }
}
