import { randomBytes } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BusinessError, type Principal } from '@gw/core';
import type { LoginResult } from '@gw/contracts';
import { OptionService, StatusService } from '@gw/option';
import { AccountService, UserService, UserStatus, type UserEntity } from '@gw/user';
import { loginResult } from '../login/login.service.js';
import type { ProvenIdentity } from '../oauth/identity.js';
import { OAuthService, type OAuthOutcome } from '../oauth/oauth.service.js';
import { SessionService } from '../session/session.service.js';
import { publicProviderView } from './custom-oauth-admin.service.js';
import { CustomOAuthRepository } from './custom-oauth.repository.js';

/** After the `custom` passport strategy: login or binding through an admin-defined provider (`user_oauth_bindings`). */
@Injectable()
export class CustomOAuthLoginService implements OnModuleInit {
  constructor(
    private readonly repo: CustomOAuthRepository,
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

  async complete(
    proof: Extract<ProvenIdentity, { provider: 'custom' }>,
    req: Request,
    res: Response,
    caller: Principal | undefined,
  ): Promise<OAuthOutcome> {
    const { custom: provider, identity, aff } = proof;
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
        username: await this.oauth.freeUsername(`${provider.slug.replace(/[^a-z0-9]/g, '').slice(0, 6)}_`),
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
}
