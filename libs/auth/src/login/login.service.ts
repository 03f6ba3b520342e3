import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BusinessError } from '@gw/core';
import type { LoginRequest, LoginResult } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { DUMMY_HASH, TurnstileService, UserService, UserStatus, verifyPassword, type UserEntity } from '@gw/user';
import { SessionService } from '../session/session.service.js';
import { LoginLimiter } from './login-limiter.js';

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
  ) {}

  async login(req: Request, res: Response, request: LoginRequest): Promise<LoginResult> {
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

    // Compare against a dummy hash for unknown users, so "no such user" and "wrong password" take the same time.
    const valid = await verifyPassword(request.password, user?.password ?? DUMMY_HASH);
    if (!user || !valid || user.status !== UserStatus.Enabled) throw new BusinessError(WRONG_CREDENTIALS);
    await this.limiter.release(account, ip);
    await this.sessions.start(req, res, user);
    await this.users.recordLogin(user.id);
    return loginResult(user);
  }
}
