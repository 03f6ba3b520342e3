import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ForbiddenError,
  MIN_ROLE,
  OPTIONAL_AUTH,
  SECURE_VERIFICATION,
  UnauthorizedError,
  VerificationRequiredError,
  type AuthedRequest,
} from '@gw/core';
import { UserStatus } from '@gw/user';
import { SecureVerificationService } from '../verify/secure-verification.service.js';
import { SessionService } from './session.service.js';

export const INVALID_ACCESS_TOKEN = 'no permission: the access token is invalid';

/**
 * new-api's UserAuth/AdminAuth/RootAuth. A route marked with MinRole needs a login (session cookie
 * or access token) and the `New-Api-User` header naming the same user. The user row is read on every
 * call, so a ban or a role change takes effect at once, even for a live session.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionService,
    private readonly verification: SecureVerificationService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    const minRole = this.reflector.getAllAndOverride<number | undefined>(MIN_ROLE, targets);
    const optional = this.reflector.getAllAndOverride<boolean | undefined>(OPTIONAL_AUTH, targets);
    if (minRole === undefined && !optional) return true;

    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const identity = await this.sessions.identify(req);
    if (!identity) {
      if (optional) return true;
      // new-api answers a wrong access token with 200 success:false and only a missing login with 401;
      // scripts written against it tell the two apart by the status.
      if (req.headers.authorization?.trim()) throw new ForbiddenError(INVALID_ACCESS_TOKEN);
      throw new UnauthorizedError();
    }
    const { user } = identity;
    if (user.status !== UserStatus.Enabled || user.deletedAt) {
      if (optional) return true;
      await this.sessions.endAllFor(user.id);
      throw new ForbiddenError('this user has been disabled');
    }
    if (minRole !== undefined) {
      const header = req.headers['new-api-user'];
      const claimed = typeof header === 'string' && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
      if (claimed === undefined) throw new UnauthorizedError('unauthorized: the New-Api-User header is missing or invalid');
      if (claimed !== user.id) throw new UnauthorizedError('unauthorized: New-Api-User does not match the logged-in user');
      if (user.role < minRole) throw new ForbiddenError();
    }
    req.principal = { id: user.id, username: user.username, role: user.role, group: user.group, sessionId: identity.sessionId };
    // After the role check, so a caller without the role learns nothing about verification.
    if (this.reflector.getAllAndOverride<boolean | undefined>(SECURE_VERIFICATION, targets)) {
      if (!(await this.verification.isVerified(req.principal))) throw new VerificationRequiredError();
    }
    return true;
  }
}
