import { randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BusinessError, outboundFetch, OutboundUrlError, type Principal } from '@gw/core';
import type { LoginResult } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { AccountService, KvStore, randomAlnum, sameSecret, UserService, UserStatus, type BindingField, type UserEntity } from '@gw/user';
import { SessionService } from '../session/session.service.js';
import { loginResult } from '../login/login.service.js';
import { verifyTelegram } from './telegram.js';

export const STATE_COOKIE = 'oauth_state';
const STATE_TTL_SECONDS = 10 * 60;
const WECHAT_CODE_TTL_SECONDS = 3 * 60;

export type Provider = 'github' | 'oidc' | 'linuxdo' | 'discord' | 'wechat' | 'telegram';
type CodeProvider = 'github' | 'oidc' | 'linuxdo' | 'discord';

interface ExternalIdentity {
  id: string;
  username?: string;
  displayName?: string;
  email?: string;
}

const FIELD: Record<Provider, BindingField> = {
  github: 'githubId',
  oidc: 'oidcId',
  linuxdo: 'linuxDoId',
  discord: 'discordId',
  wechat: 'wechatId',
  telegram: 'telegramId',
};
const PREFIX: Record<Provider, string> = {
  github: 'github_',
  oidc: 'oidc_',
  linuxdo: 'linuxdo_',
  discord: 'discord_',
  wechat: 'wechat_',
  telegram: 'tg_',
};
const LABEL: Record<Provider, string> = {
  github: 'GitHub',
  oidc: 'OIDC',
  linuxdo: 'Linux DO',
  discord: 'Discord',
  wechat: 'WeChat',
  telegram: 'Telegram',
};

export type OAuthOutcome = { kind: 'login'; user: LoginResult } | { kind: 'bind' };

/** Third-party sign-in and binding (GitHub, OIDC, Linux DO, WeChat server, Telegram). */
@Injectable()
export class OAuthService {
  private readonly logger = new Logger('OAuth');

  constructor(
    private readonly options: OptionService,
    private readonly kv: KvStore,
    private readonly users: UserService,
    private readonly accounts: AccountService,
    private readonly sessions: SessionService,
  ) {}

  /** A random single-use state, stored server side and tied to this browser by an HttpOnly cookie. */
  async newState(req: Request, res: Response, aff: string): Promise<string> {
    const state = randomBytes(18).toString('base64url');
    await this.kv.set(`oauth:state:${state}`, JSON.stringify({ aff: aff.slice(0, 32) }), STATE_TTL_SECONDS);
    const secure = req.secure ? '; Secure' : '';
    res.append('Set-Cookie', `${STATE_COOKIE}=${state}; Path=/api/oauth; Max-Age=${STATE_TTL_SECONDS}; HttpOnly; SameSite=Lax${secure}`);
    return state;
  }

  async consumeState(req: Request, state: string): Promise<{ aff: string }> {
    const invalid = new BusinessError('state is empty or invalid');
    const cookie = readCookie(req.headers.cookie, STATE_COOKIE);
    if (!state || !cookie || !sameSecret(cookie, state)) throw invalid;
    const stored = await this.kv.take(`oauth:state:${state}`);
    if (!stored) throw invalid;
    try {
      return JSON.parse(stored) as { aff: string };
    } catch {
      return { aff: '' };
    }
  }

  private get allowPrivate(): boolean {
    return this.options.get('AllowPrivateOutboundUrls');
  }

  private redirectUri(path: string): string {
    return `${this.options.get('ServerAddress').replace(/\/+$/, '')}${path}`;
  }

  /** GET /api/oauth/github|oidc|linuxdo|discord. */
  async codeFlow(
    provider: CodeProvider,
    req: Request,
    res: Response,
    code: string,
    state: string,
    caller?: Principal,
  ): Promise<OAuthOutcome> {
    this.assertEnabled(provider);
    const { aff } = await this.consumeState(req, state);
    if (!code) throw new BusinessError('the authorization code is empty');
    const identity = await this.fetchIdentity(provider, code);
    return this.complete(provider, identity, req, res, caller, aff);
  }

  async wechat(code: string, req: Request, res: Response, caller?: Principal): Promise<OAuthOutcome> {
    this.assertEnabled('wechat');
    if (!code) throw new BusinessError('the verification code is empty');
    // A code works once, for 3 minutes.
    if (!(await this.kv.setIfAbsent(`oauth:wechat:code:${code}`, '1', WECHAT_CODE_TTL_SECONDS))) {
      throw new BusinessError('the verification code is invalid or has expired');
    }
    const base = this.options.get('WeChatServerAddress').replace(/\/+$/, '');
    if (!base) throw new BusinessError('the WeChat server is not configured');
    const answer = await this.fetchJson<{ success?: boolean; message?: string; data?: string }>(
      `${base}/api/wechat/user?code=${encodeURIComponent(code)}`,
      { headers: { Authorization: this.options.get('WeChatServerToken') } },
    );
    if (!answer.success || typeof answer.data !== 'string' || !answer.data) {
      throw new BusinessError(
        answer.message ? `WeChat login failed: ${String(answer.message).slice(0, 200)}` : 'the verification code is invalid or has expired',
      );
    }
    return this.complete('wechat', { id: answer.data }, req, res, caller, '');
  }

  async telegram(query: Record<string, unknown>, req: Request, res: Response, caller?: Principal): Promise<OAuthOutcome> {
    this.assertEnabled('telegram');
    if (!verifyTelegram(query, this.options.get('TelegramBotToken'))) throw new BusinessError('Telegram data is invalid or has expired');
    const username = typeof query.username === 'string' ? query.username : undefined;
    const name = [query.first_name, query.last_name].filter((s) => typeof s === 'string' && s).join(' ');
    return this.complete('telegram', { id: String(query.id), username, displayName: name || username }, req, res, caller, '');
  }

  private assertEnabled(provider: Provider): void {
    const enabled = {
      github: this.options.get('GitHubOAuthEnabled'),
      oidc: this.options.get('oidc.enabled'),
      linuxdo: this.options.get('LinuxDOOAuthEnabled'),
      discord: this.options.get('discord.enabled'),
      wechat: this.options.get('WeChatAuthEnabled'),
      telegram: this.options.get('TelegramOAuthEnabled'),
    }[provider];
    if (!enabled) throw new BusinessError(`the administrator has not enabled ${LABEL[provider]} login`);
  }

  private async complete(
    provider: Provider,
    identity: ExternalIdentity,
    req: Request,
    res: Response,
    caller: Principal | undefined,
    aff: string,
  ): Promise<OAuthOutcome> {
    const field = FIELD[provider];
    const owner = await this.users.findByBinding(field, identity.id);
    if (caller) {
      if (owner && owner.id !== caller.id) throw new BusinessError(`this ${LABEL[provider]} account is already bound to another user`);
      if (!owner && (await this.users.bindingTaken(field, identity.id))) {
        throw new BusinessError(`this ${LABEL[provider]} account is already bound to another user`);
      }
      await this.users.bind(caller.id, field, identity.id);
      return { kind: 'bind' };
    }
    let user: UserEntity | null = owner;
    if (!user) {
      if (await this.users.bindingTaken(field, identity.id)) throw new BusinessError('the user has been deleted');
      if (!this.options.get('RegisterEnabled')) throw new BusinessError('the administrator has turned off new user registration');
      const inviter = aff ? await this.findInviter(aff) : 0;
      const id = await this.accounts.createAccount({
        username: await this.freeUsername(provider),
        password: randomBytes(18).toString('base64url'),
        displayName: (identity.displayName || identity.username || '').slice(0, 20) || undefined,
        inviterId: inviter,
        bindings: { [field]: identity.id },
      });
      user = await this.users.findById(id);
    }
    if (!user) throw new BusinessError('user not found');
    if (user.status !== UserStatus.Enabled) throw new BusinessError('the user has been banned');
    await this.sessions.start(req, res, user);
    await this.users.recordLogin(user.id);
    return { kind: 'login', user: loginResult(user) };
  }

  private async findInviter(aff: string): Promise<number> {
    const inviter = await this.users.findByAffCode(aff);
    return inviter?.id ?? 0;
  }

  private async freeUsername(provider: Provider): Promise<string> {
    const prefix = PREFIX[provider];
    for (let attempt = 0; attempt < 5; attempt++) {
      const name = prefix + randomAlnum(Math.max(3, 12 - prefix.length)).toLowerCase();
      if (!(await this.users.usernameTaken(name))) return name;
    }
    throw new BusinessError('failed to create the user, try again');
  }

  private async fetchJson<T>(
    url: string,
    init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
  ): Promise<T> {
    try {
      const res = await outboundFetch(url, { ...init, allowPrivate: this.allowPrivate });
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

  private async fetchIdentity(provider: CodeProvider, code: string): Promise<ExternalIdentity> {
    if (provider === 'discord') return this.discordIdentity(code);
    if (provider === 'github') {
      const token = await this.fetchJson<{ access_token?: string }>(this.options.get('GitHubTokenUrl'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          client_id: this.options.get('GitHubClientId'),
          client_secret: this.options.get('GitHubClientSecret'),
          code,
        }),
      });
      if (!token.access_token) throw new BusinessError('GitHub login failed: no access token');
      const user = await this.fetchJson<{ id?: number | string; login?: string; name?: string; email?: string }>(
        this.options.get('GitHubUserUrl'),
        {
          headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json', 'user-agent': 'ai-gateway' },
        },
      );
      if (user.id === undefined || user.id === null || user.id === '') throw new BusinessError('GitHub login failed: no user id');
      return { id: String(user.id), username: user.login, displayName: user.name || user.login, email: user.email };
    }
    if (provider === 'linuxdo') {
      const basic = Buffer.from(`${this.options.get('LinuxDOClientId')}:${this.options.get('LinuxDOClientSecret')}`).toString('base64');
      const token = await this.fetchJson<{ access_token?: string }>(this.options.get('LinuxDOTokenUrl'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: this.redirectUri('/oauth/linuxdo') }).toString(),
      });
      if (!token.access_token) throw new BusinessError('Linux DO login failed: no access token');
      const user = await this.fetchJson<{
        id?: number;
        username?: string;
        name?: string;
        active?: boolean;
        silenced?: boolean;
        trust_level?: number;
      }>(this.options.get('LinuxDOUserUrl'), { headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' } });
      if (user.id === undefined || user.id === null) throw new BusinessError('Linux DO login failed: no user id');
      if (user.active === false || user.silenced === true) throw new BusinessError('the Linux DO account is not active');
      if ((user.trust_level ?? 0) < this.options.get('LinuxDOMinimumTrustLevel'))
        throw new BusinessError('the Linux DO trust level is too low');
      return { id: String(user.id), username: user.username, displayName: user.name || user.username };
    }
    const endpoints = await this.oidcEndpoints();
    const basic = Buffer.from(
      `${encodeURIComponent(this.options.get('oidc.client_id'))}:${encodeURIComponent(this.options.get('oidc.client_secret'))}`,
    ).toString('base64');
    const token = await this.fetchJson<{ access_token?: string }>(endpoints.token, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: this.redirectUri('/oauth/oidc') }).toString(),
    });
    if (!token.access_token) throw new BusinessError('OIDC login failed: no access token');
    const user = await this.fetchJson<{ sub?: string; preferred_username?: string; name?: string; email?: string }>(endpoints.userinfo, {
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' },
    });
    if (!user.sub) throw new BusinessError('OIDC login failed: no subject');
    return {
      id: String(user.sub),
      username: user.preferred_username,
      displayName: user.name || user.preferred_username,
      email: user.email,
    };
  }

  private async discordIdentity(code: string): Promise<ExternalIdentity> {
    const token = await this.fetchJson<{ access_token?: string }>(this.options.get('DiscordTokenUrl'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        client_id: this.options.get('discord.client_id'),
        client_secret: this.options.get('discord.client_secret'),
        grant_type: 'authorization_code',
        code,
        redirect_uri: this.redirectUri('/oauth/discord'),
      }).toString(),
    });
    if (!token.access_token) throw new BusinessError('Discord login failed: no access token');
    const user = await this.fetchJson<{ id?: string; username?: string; global_name?: string | null }>(this.options.get('DiscordUserUrl'), {
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' },
    });
    if (!user.id) throw new BusinessError('Discord login failed: no user id');
    return { id: String(user.id), username: user.username, displayName: user.global_name || user.username };
  }

  private async oidcEndpoints(): Promise<{ token: string; userinfo: string }> {
    let token = this.options.get('oidc.token_endpoint');
    let userinfo = this.options.get('oidc.user_info_endpoint');
    const wellKnown = this.options.get('oidc.well_known');
    if ((!token || !userinfo) && wellKnown) {
      const doc = await this.fetchJson<{ token_endpoint?: string; userinfo_endpoint?: string }>(wellKnown);
      token ||= typeof doc.token_endpoint === 'string' ? doc.token_endpoint : '';
      userinfo ||= typeof doc.userinfo_endpoint === 'string' ? doc.userinfo_endpoint : '';
    }
    if (!token || !userinfo) throw new BusinessError('OIDC is not configured');
    return { token, userinfo };
  }
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
