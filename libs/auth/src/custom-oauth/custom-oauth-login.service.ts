import { randomBytes } from 'node:crypto';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BusinessError, outboundFetch, OutboundUrlError, type Principal } from '@gw/core';
import type { LoginResult } from '@gw/contracts';
import { OptionService, StatusService } from '@gw/option';
import { AccountService, randomAlnum, UserService, UserStatus, type UserEntity } from '@gw/user';
import { loginResult } from '../login/login.service.js';
import { OAuthService, type OAuthOutcome } from '../oauth/oauth.service.js';
import { SessionService } from '../session/session.service.js';
import { CustomOAuthAdminService, publicProviderView } from './custom-oauth-admin.service.js';
import type { CustomOAuthProviderEntity } from './custom-oauth.entity.js';
import { CustomOAuthRepository } from './custom-oauth.repository.js';

interface ExternalIdentity {
  id: string;
  username?: string;
  displayName?: string;
  email?: string;
}

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

/** Login and binding through an admin-defined OAuth 2 / OIDC provider (`GET /api/oauth/:slug`). */
@Injectable()
export class CustomOAuthLoginService implements OnModuleInit {
  private readonly logger = new Logger('CustomOAuth');

  constructor(
    private readonly repo: CustomOAuthRepository,
    private readonly admin: CustomOAuthAdminService,
    private readonly oauth: OAuthService,
    private readonly options: OptionService,
    private readonly users: UserService,
    private readonly accounts: AccountService,
    private readonly sessions: SessionService,
    private readonly status: StatusService,
  ) {}

  onModuleInit(): void {
    // new-api lists the enabled providers in /api/status only when there are any.
    this.status.extend(async () => {
      const providers = await this.repo.listEnabled();
      return providers.length ? { custom_oauth_providers: providers.map(publicProviderView) } : {};
    });
  }

  async codeFlow(slug: string, req: Request, res: Response, code: string, state: string, caller?: Principal): Promise<OAuthOutcome> {
    const provider = await this.repo.findBySlug(slug.toLowerCase());
    if (!provider) throw new BusinessError('unknown login provider');
    if (!provider.enabled) throw new BusinessError(`the administrator has not enabled ${provider.name} login`);
    const { aff } = await this.oauth.consumeState(req, state);
    if (!code) throw new BusinessError('the authorization code is empty');
    const identity = await this.fetchIdentity(provider, code);
    return this.complete(provider, identity, req, res, caller, aff);
  }

  private async complete(
    provider: CustomOAuthProviderEntity,
    identity: ExternalIdentity,
    req: Request,
    res: Response,
    caller: Principal | undefined,
    aff: string,
  ): Promise<OAuthOutcome> {
    const taken = `this ${provider.name} account is already bound to another user`;
    const binding = await this.repo.findBinding(provider.id, identity.id);
    if (caller) {
      if (binding && binding.userId !== caller.id) throw new BusinessError(taken);
      if (binding) return { kind: 'bind' };
      const own = await this.repo.findUserBinding(caller.id, provider.id);
      const ok = own ? await this.repo.rebind(own.id, identity.id) : await this.repo.bind(caller.id, provider.id, identity.id);
      if (!ok) throw new BusinessError(taken);
      return { kind: 'bind' };
    }
    let user: UserEntity | null = binding ? await this.users.findById(binding.userId) : null;
    if (binding && !user) throw new BusinessError('the user has been deleted');
    if (!user) {
      if (!this.options.get('RegisterEnabled')) throw new BusinessError('the administrator has turned off new user registration');
      const inviter = aff ? ((await this.users.findByAffCode(aff))?.id ?? 0) : 0;
      const id = await this.accounts.createAccount({
        username: await this.freeUsername(provider.slug),
        password: randomBytes(18).toString('base64url'),
        displayName: (identity.displayName || identity.username || '').slice(0, 20) || undefined,
        inviterId: inviter,
      });
      if (!(await this.repo.bind(id, provider.id, identity.id))) throw new BusinessError(taken);
      user = await this.users.findById(id);
    }
    if (!user) throw new BusinessError('user not found');
    if (user.status !== UserStatus.Enabled) throw new BusinessError('the user has been banned');
    await this.sessions.start(req, res, user);
    await this.users.recordLogin(user.id);
    return { kind: 'login', user: loginResult(user) as LoginResult };
  }

  private async freeUsername(slug: string): Promise<string> {
    const prefix = `${slug.replace(/[^a-z0-9]/g, '').slice(0, 6)}_`;
    for (let attempt = 0; attempt < 5; attempt++) {
      const name = prefix + randomAlnum(Math.max(4, 12 - prefix.length)).toLowerCase();
      if (!(await this.users.usernameTaken(name))) return name;
    }
    throw new BusinessError('failed to create the user, try again');
  }

  private async fetchIdentity(provider: CustomOAuthProviderEntity, code: string): Promise<ExternalIdentity> {
    const clientId = provider.clientId ?? '';
    const secret = provider.clientSecret ? this.admin.box.open(provider.clientSecret) : '';
    if (secret === undefined) throw new BusinessError('the client secret cannot be read (was CRYPTO_SECRET changed?); enter it again');
    const redirectUri = `${this.options.get('ServerAddress').replace(/\/+$/, '')}/oauth/${provider.slug}`;
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (provider.authStyle === 1) {
      form.set('client_id', clientId);
      form.set('client_secret', secret);
    } else {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    }
    const token = await this.fetchJson<{ access_token?: string }>(provider.name, provider.tokenEndpoint ?? '', {
      method: 'POST',
      headers,
      body: form.toString(),
    });
    if (!token.access_token) throw new BusinessError(`${provider.name} login failed: no access token`);
    const info = await this.fetchJson<unknown>(provider.name, provider.userInfoEndpoint ?? '', {
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' },
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

  private async fetchJson<T>(
    name: string,
    url: string,
    init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
  ): Promise<T> {
    if (!url) throw new BusinessError(`${name} is not fully configured`);
    try {
      const res = await outboundFetch(url, { ...init, allowPrivate: this.options.get('AllowPrivateOutboundUrls') });
      if (res.status >= 300) throw new BusinessError(`the provider answered HTTP ${res.status}`);
      return res.json<T>();
    } catch (error) {
      if (error instanceof OutboundUrlError || error instanceof BusinessError) {
        this.logger.warn(`${url}: ${error.message}`);
        throw new BusinessError(`could not reach the provider: ${error.message}`);
      }
      throw error;
    }
  }
}
