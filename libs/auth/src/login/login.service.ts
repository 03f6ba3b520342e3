import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BusinessError, withMessage, type WithMessage } from '@gw/core';
import type { LoginRequest, LoginResult } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { PasswordHasher, TurnstileService, UserService, UserStatus, type UserEntity } from '@gw/user';
import { SessionService } from '../session/session.service.js';
import { TwoFactorService } from '../two-factor/two-factor.service.js';
import { LoginLimiter } from './login-limiter.js';
import { PendingLogins } from './pending-login.js';

const WRONG_CREDENTIALS = 'username or password is wrong, or the user has been banned';

export function loginResult(user: UserEntity): LoginResult {
  return { id: user.id, username: user.username, display_name: user.displayName, role: user.role, status: user.status, group: user.group };
}

@Injectable()
export class LoginService {
  constructor(
    private readonly users: UserService,
    private readonly sessions: SessionService,
    private readonly options: OptionService,
    private readonly limiter: LoginLimiter,
    private readonly turnstile: TurnstileService,
    private readonly twoFactor: TwoFactorService,
    private readonly pending: PendingLogins,
    private readonly passwords: PasswordHasher,
  ) {}

  /**
   * The password check behind the `local` passport strategy: switches, Turnstile, the failure limits
   * and the password. Resolves with the user; the session is not started here.
   */
  async authenticate(req: Request, request: LoginRequest): Promise<UserEntity> {
    if (!this.options.get('PasswordLoginEnabled')) {
      throw new BusinessError('the administrator has turned off password login');
    }
    const username = request.username.trim();
    if (!username || !request.password) throw new BusinessError('please enter username and password');
    const ip = req.ip ?? req.socket.remoteAddress ?? '';
    const token = typeof req.query.turnstile === 'string' ? req.query.turnstile : undefined;
    await this.turnstile.check(token, ip);
    const user = await this.users.findByLoginName(username);
    // Count failures per account (by id when it exists, so username and email share one budget).
    const account = user ? `id:${user.id}` : `name:${username.toLowerCase()}`;
    await this.limiter.reserve(account, ip);

    const valid = await this.passwords.verifyOrDummy(request.password, user?.password);
    if (!user || !valid || user.status !== UserStatus.Enabled) throw new BusinessError(WRONG_CREDENTIALS);
    await this.limiter.release(account, ip);
    return user;
  }

  /** After the password: the second factor when it is on (new-api's `require_2fa`), else the session. */
  async afterPassword(req: Request, res: Response, user: UserEntity): Promise<LoginResult | WithMessage> {
    if (await this.twoFactor.isEnabled(user.id)) {
      // No session yet: the client asks for the code and posts it to /login/2fa.
      await this.pending.start(req, res, user.id);
      return withMessage('two-factor authentication is on: enter the code from your authenticator app', { require_2fa: true });
    }
    return this.finishLogin(req, res, user);
  }

  /** `POST /api/user/login/2fa`: the second step of a password login. */
  async secondFactor(req: Request, res: Response, code: string): Promise<LoginResult> {
    const expired = new BusinessError('the login has expired, log in again');
    const userId = await this.pending.peek(req);
    if (!userId) throw expired;
    const user = await this.users.findById(userId);
    if (!user || user.status !== UserStatus.Enabled) throw new BusinessError(WRONG_CREDENTIALS);
    await this.twoFactor.verify(user.id, code);
    if (!(await this.pending.finish(req))) throw expired;
    return this.finishLogin(req, res, user);
  }

  async finishLogin(req: Request, res: Response, user: UserEntity): Promise<LoginResult> {
    await this.sessions.start(req, res, user);
    await this.users.recordLogin(user.id);
    return loginResult(user);
  }
}
