import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, BusinessError, NotFoundError, outboundFetch, OutboundUrlError, type AppConfig } from '@gw/core';
import type { CustomOAuthProviderRequest } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { SecretBox } from '../support/secret-box.js';
import type { CustomOAuthProviderEntity } from './custom-oauth.entity.js';
import { CustomOAuthRepository } from './custom-oauth.repository.js';

/** Built-in login routes a custom slug must not shadow. */
const RESERVED_SLUGS = new Set(['state', 'github', 'oidc', 'linuxdo', 'discord', 'wechat', 'telegram', 'email']);

/** An admin's view of a provider: the secret never leaves, only whether one is set. */
export function providerView(p: CustomOAuthProviderEntity) {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    icon: p.icon,
    kind: p.kind || 'oauth_code',
    enabled: p.enabled,
    client_id: p.clientId ?? '',
    client_secret_set: !!p.clientSecret,
    authorization_endpoint: p.authorizationEndpoint ?? '',
    token_endpoint: p.tokenEndpoint ?? '',
    user_info_endpoint: p.userInfoEndpoint ?? '',
    scopes: p.scopes,
    user_id_field: p.userIdField,
    username_field: p.usernameField,
    display_name_field: p.displayNameField,
    email_field: p.emailField,
    well_known: p.wellKnown ?? '',
    auth_style: p.authStyle,
    pkce_enabled: p.pkceEnabled,
    created_at: p.createdAt?.toISOString() ?? null,
    updated_at: p.updatedAt?.toISOString() ?? null,
  };
}

/** What the login page needs to build the authorize link (`/api/status` → `custom_oauth_providers`). */
export function publicProviderView(p: CustomOAuthProviderEntity) {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    icon: p.icon,
    client_id: p.clientId ?? '',
    authorization_endpoint: p.authorizationEndpoint ?? '',
    scopes: p.scopes,
  };
}

/** Root's CRUD of custom OAuth 2 / OIDC providers (`/api/custom-oauth-provider`). */
@Injectable()
export class CustomOAuthAdminService {
  private readonly logger = new Logger('CustomOAuth');
  readonly box: SecretBox;

  constructor(
    private readonly repo: CustomOAuthRepository,
    private readonly options: OptionService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.box = new SecretBox(config.session.cryptoSecret, 'custom-oauth-client-secret');
  }

  async list() {
    return (await this.repo.list()).map(providerView);
  }

  async get(id: number) {
    return providerView(await this.mustFind(id));
  }

  async create(input: CustomOAuthProviderRequest) {
    this.validate(input);
    if (await this.repo.slugTaken(input.slug)) throw new BusinessError('the slug is already used by another provider');
    const id = await this.repo.insert({
      ...this.columns(input),
      clientSecret: input.client_secret ? this.box.seal(input.client_secret) : '',
    });
    return providerView(await this.mustFind(id));
  }

  async update(id: number, input: CustomOAuthProviderRequest) {
    await this.mustFind(id);
    this.validate(input);
    if (await this.repo.slugTaken(input.slug, id)) throw new BusinessError('the slug is already used by another provider');
    await this.repo.update(id, {
      ...this.columns(input),
      ...(input.client_secret ? { clientSecret: this.box.seal(input.client_secret) } : {}),
    });
    return providerView(await this.mustFind(id));
  }

  async remove(id: number): Promise<void> {
    if (!(await this.repo.remove(id))) throw new NotFoundError('provider not found');
  }

  /** Reads an OIDC discovery document and returns the endpoints to fill in. */
  async discover(url: string) {
    if (!url) throw new BusinessError('please enter the Well-Known URL');
    try {
      const res = await outboundFetch(url, { allowPrivate: this.options.get('AllowPrivateOutboundUrls') });
      if (res.status >= 300) throw new BusinessError(`the provider answered HTTP ${res.status}`);
      const doc = await res.json<Record<string, unknown>>();
      const text = (key: string) => (typeof doc[key] === 'string' ? (doc[key] as string) : '');
      if (!text('authorization_endpoint') || !text('token_endpoint'))
        throw new BusinessError('the discovery document has no authorization or token endpoint');
      return {
        well_known: url,
        issuer: text('issuer'),
        authorization_endpoint: text('authorization_endpoint'),
        token_endpoint: text('token_endpoint'),
        user_info_endpoint: text('userinfo_endpoint'),
        jwks_uri: text('jwks_uri'),
        scopes_supported: Array.isArray(doc.scopes_supported) ? doc.scopes_supported.filter((s) => typeof s === 'string') : [],
      };
    } catch (error) {
      if (error instanceof BusinessError) throw error;
      if (error instanceof OutboundUrlError) throw new BusinessError(`get OIDC config failed: ${error.message}`);
      this.logger.warn(`discovery ${url}: ${(error as Error).message}`);
      throw new BusinessError('get OIDC config failed, check network and Well-Known URL');
    }
  }

  private validate(input: CustomOAuthProviderRequest): void {
    if (RESERVED_SLUGS.has(input.slug)) throw new BusinessError(`the slug "${input.slug}" is reserved for a built-in login`);
    if (!input.client_id) throw new BusinessError('client ID is required');
    if (!input.authorization_endpoint) throw new BusinessError('authorization endpoint is required');
    if (!input.token_endpoint) throw new BusinessError('token endpoint is required');
    if (!input.user_info_endpoint) throw new BusinessError('user info endpoint is required');
  }

  private columns(input: CustomOAuthProviderRequest): Partial<CustomOAuthProviderEntity> {
    return {
      name: input.name,
      slug: input.slug,
      icon: input.icon,
      kind: 'oauth_code',
      enabled: input.enabled,
      clientId: input.client_id,
      authorizationEndpoint: input.authorization_endpoint,
      tokenEndpoint: input.token_endpoint,
      userInfoEndpoint: input.user_info_endpoint,
      scopes: input.scopes || 'openid profile email',
      userIdField: input.user_id_field || 'sub',
      usernameField: input.username_field,
      displayNameField: input.display_name_field,
      emailField: input.email_field,
      wellKnown: input.well_known,
      authStyle: input.auth_style,
      pkceEnabled: input.pkce_enabled,
    };
  }

  private async mustFind(id: number): Promise<CustomOAuthProviderEntity> {
    const found = await this.repo.findById(id);
    if (!found) throw new NotFoundError('provider not found');
    return found;
  }
}
