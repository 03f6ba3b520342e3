import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BusinessError } from '@gw/core';
import { OptionService } from '@gw/option';
import { CustomOAuthRepository } from '../custom-oauth/custom-oauth.repository.js';
import { OAuthStateStore, pkceChallenge } from './oauth-state.js';
import { CodeCallback } from './strategies/code-callback.js';
import { OidcClients } from './strategies/oidc-client.js';

export interface AuthorizeLink {
  state: string;
  url: string;
}

const secret = () => randomBytes(32).toString('base64url');

/**
 * Built-in providers whose authorize page accepts an S256 code challenge: GitHub (OAuth apps, since
 * 2025) and Discord (its authorization server metadata lists S256). Linux DO documents none and stays
 * on the state-only start.
 */
const PKCE_BUILT_IN = {
  github: { authorize: 'https://github.com/login/oauth/authorize', clientId: 'GitHubClientId', params: { scope: 'user:email' } },
  discord: {
    authorize: 'https://discord.com/oauth2/authorize',
    clientId: 'discord.client_id',
    params: { response_type: 'code', scope: 'identify' },
  },
} as const;

/**
 * `GET /api/oauth/:provider/authorize`: the gateway builds the provider's authorize link itself, so
 * the PKCE verifier and the OIDC nonce never reach the browser; the state remembers both and the
 * provider it was issued for. (`GET /api/oauth/state` stays for new-api's console, state only.)
 * Served for OIDC, GitHub, Discord and custom providers.
 */
@Injectable()
export class AuthorizeLinkService {
  constructor(
    private readonly options: OptionService,
    private readonly states: OAuthStateStore,
    private readonly callback: CodeCallback,
    private readonly oidc: OidcClients,
    private readonly custom: CustomOAuthRepository,
  ) {}

  async build(provider: string, req: Request, res: Response, aff: string): Promise<AuthorizeLink> {
    if (!this.options.get('ServerAddress')) throw new BusinessError('the server address (ServerAddress) is not configured');
    if (provider === 'oidc') return this.builtInOidc(req, res, aff);
    if (provider === 'github' || provider === 'discord') return this.withPkce(provider, req, res, aff);
    const custom = await this.custom.findBySlug(provider.toLowerCase());
    if (!custom) throw new BusinessError('unknown login provider');
    if (!custom.enabled) throw new BusinessError(`the administrator has not enabled ${custom.name} login`);
    if (!custom.authorizationEndpoint) throw new BusinessError(`${custom.name} is not fully configured`);
    const verifier = custom.pkceEnabled ? secret() : undefined;
    // An OpenID Connect provider (discovery with an issuer, `openid` scope) gets a nonce its ID token must echo.
    const nonce = (await this.oidc.custom(custom)) ? secret() : undefined;
    const state = await this.states.issue(req, res, { aff, provider: custom.slug, verifier, nonce });
    const url = this.link(custom.authorizationEndpoint, {
      client_id: custom.clientId ?? '',
      response_type: 'code',
      scope: custom.scopes || 'openid profile email',
      redirect_uri: this.callback.redirectUri(custom.slug),
      state,
      ...(nonce ? { nonce } : {}),
      ...(verifier ? { code_challenge: pkceChallenge(verifier), code_challenge_method: 'S256' } : {}),
    });
    return { state, url };
  }

  private async withPkce(provider: keyof typeof PKCE_BUILT_IN, req: Request, res: Response, aff: string): Promise<AuthorizeLink> {
    this.callback.assertEnabled(provider);
    const site = PKCE_BUILT_IN[provider];
    const verifier = secret();
    const state = await this.states.issue(req, res, { aff, provider, verifier });
    const url = this.link(site.authorize, {
      client_id: this.options.get(site.clientId),
      ...site.params,
      redirect_uri: this.callback.redirectUri(provider),
      state,
      code_challenge: pkceChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { state, url };
  }

  private async builtInOidc(req: Request, res: Response, aff: string): Promise<AuthorizeLink> {
    this.callback.assertEnabled('oidc');
    const settings = await this.oidc.builtIn();
    if (!settings.authorization) throw new BusinessError('OIDC is not configured');
    const methods = settings.document.code_challenge_methods_supported;
    // PKCE where the provider says it supports S256; a nonce where its ID token can be checked (issuer known).
    const verifier = Array.isArray(methods) && methods.includes('S256') ? secret() : undefined;
    const nonce = settings.issuer ? secret() : undefined;
    const state = await this.states.issue(req, res, { aff, provider: 'oidc', verifier, nonce });
    const url = this.link(settings.authorization, {
      client_id: this.options.get('oidc.client_id'),
      response_type: 'code',
      scope: 'openid profile email',
      redirect_uri: this.callback.redirectUri('oidc'),
      state,
      ...(nonce ? { nonce } : {}),
      ...(verifier ? { code_challenge: pkceChallenge(verifier), code_challenge_method: 'S256' } : {}),
    });
    return { state, url };
  }

  private link(endpoint: string, params: Record<string, string>): string {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new BusinessError('the authorization endpoint is not a valid URL');
    }
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return url.href;
  }
}
