import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BusinessError, type Principal } from '@gw/core';
import type { LoginResult } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { AccountService, randomAlnum, UserService, UserStatus, type BindingField, type UserEntity } from '@gw/user';
import { SessionService } from '../session/session.service.js';
import { loginResult } from '../login/login.service.js';
import type { BuiltInProvider, ProvenIdentity } from './identity.js';
import { PROVIDER_LABEL } from './strategies/code-callback.js';

const FIELD: Record<BuiltInProvider, BindingField> = {
  github: 'githubId',
  oidc: 'oidcId',
  linuxdo: 'linuxDoId',
  discord: 'discordId',
  wechat: 'wechatId',
  telegram: 'telegramId',
};
const PREFIX: Record<BuiltInProvider, string> = {
  github: 'github_',
  oidc: 'oidc_',
  linuxdo: 'linuxdo_',
  discord: 'discord_',
  wechat: 'wechat_',
  telegram: 'tg_',
};

export type OAuthOutcome = { kind: 'login'; user: LoginResult } | { kind: 'bind' };

/**
 * What follows a built-in provider's passport strategy: bind the proven account to the caller, or
 * sign in its owner (creating the account on first use, crediting the inviter from the state).
 */
@Injectable()
export class OAuthService {
  constructor(
    private readonly options: OptionService,
    private readonly users: UserService,
    private readonly accounts: AccountService,
    private readonly sessions: SessionService,
  ) {}

  async complete(
    proof: Extract<ProvenIdentity, { provider: BuiltInProvider }>,
    req: Request,
    res: Response,
    caller?: Principal,
  ): Promise<OAuthOutcome> {
    const { provider, identity, aff } = proof;
    const field = FIELD[provider];
    const taken = `this ${PROVIDER_LABEL[provider]} account is already bound to another user`;
    const owner = await this.users.findByBinding(field, identity.id);
    if (caller) {
      if (owner && owner.id !== caller.id) throw new BusinessError(taken);
      if (!owner && (await this.users.bindingTaken(field, identity.id))) throw new BusinessError(taken);
      await this.users.bind(caller.id, field, identity.id);
      return { kind: 'bind' };
    }
    let user: UserEntity | null = owner;
    if (!user) {
      if (await this.users.bindingTaken(field, identity.id)) throw new BusinessError('the user has been deleted');
      if (!this.options.get('RegisterEnabled')) throw new BusinessError('the administrator has turned off new user registration');
      const inviter = aff ? ((await this.users.findByAffCode(aff))?.id ?? 0) : 0;
      const id = await this.accounts.createAccount({
        username: await this.freeUsername(PREFIX[provider]),
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

  /** A free `<prefix><random>` username of at most 12 characters. */
  async freeUsername(prefix: string): Promise<string> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const name = prefix + randomAlnum(Math.max(3, 12 - prefix.length)).toLowerCase();
      if (!(await this.users.usernameTaken(name))) return name;
    }
    throw new BusinessError('failed to create the user, try again');
  }
}
