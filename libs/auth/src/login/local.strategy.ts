import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import passport from 'passport';
import type { Request, Response } from 'express';
import passportCustom from 'passport-custom';
import { body, BusinessError, UnauthorizedError } from '@gw/core';
import { LoginSchema } from '@gw/contracts';
import type { UserEntity } from '@gw/user';
import { LoginService } from './login.service.js';

const loginBody = body(LoginSchema);

/**
 * Username/email + password login as a passport strategy (`local`). A custom strategy rather than
 * passport-local: the gateway keeps new-api's answers (HTTP 200 `success:false` with the spec's
 * messages, Turnstile, lockout) instead of passport-local's bare 401.
 */
@Injectable()
export class LocalLoginStrategy extends PassportStrategy(passportCustom.Strategy, 'local') {
  constructor(private readonly login: LoginService) {
    super();
  }

  async validate(req: Request): Promise<UserEntity> {
    // A cross-site HTML form can post urlencoded or multipart bodies, never JSON without a CORS preflight:
    // JSON only keeps another site from logging a visitor into the attacker's account (login CSRF, threats A3).
    if (!req.is('application/json')) throw new BusinessError('the login request must be sent as JSON');
    return this.login.authenticate(req, loginBody.transform(req.body));
  }
}

/**
 * Runs the `local` strategy through this app's own passport instance. Passport's default instance is a
 * process-wide registry: with two gateways in one process (tests, multi-instance) the last one started
 * would answer every login, so each app authenticates with the strategy object it built.
 */
@Injectable()
export class PasswordLoginGuard implements CanActivate {
  private readonly passport = new passport.Passport();

  constructor(strategy: LocalLoginStrategy) {
    this.passport.use('local', strategy);
  }

  canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { user?: UserEntity }>();
    const res = http.getResponse<Response>();
    return new Promise((resolve, reject) => {
      const done = (error: unknown, user: UserEntity | false) => {
        if (error) return reject(error);
        if (!user) return reject(new UnauthorizedError());
        req.user = user;
        resolve(true);
      };
      this.passport.authenticate('local', { session: false }, done)(req, res, (error?: unknown) =>
        error ? reject(error) : resolve(false),
      );
    });
  }
}
