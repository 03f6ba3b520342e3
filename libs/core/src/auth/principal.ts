import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

export const Role = { Guest: 0, User: 1, Admin: 10, Root: 100 } as const;
export type RoleValue = (typeof Role)[keyof typeof Role];

/** Who is calling a console route, as established by the auth guard. */
export interface Principal {
  id: number;
  username: string;
  role: number;
  group: string;
  /** Id of the session row, when logged in by cookie (absent with an access token). */
  sessionId?: string;
}

export type AuthedRequest = Request & { principal?: Principal };

export const MIN_ROLE = 'gw:min-role';

/** The least role a route needs; routes without it are public. */
export const MinRole = (role: RoleValue) => SetMetadata(MIN_ROLE, role);
export const UserRoute = () => MinRole(Role.User);
export const AdminRoute = () => MinRole(Role.Admin);
export const RootRoute = () => MinRole(Role.Root);

export const SECURE_VERIFICATION = 'gw:secure-verification';
/** new-api's SecureVerificationRequired: a login session that passed `POST /api/verify` within 5 minutes (checked by the auth guard). */
export const SecureVerificationRequired = () => SetMetadata(SECURE_VERIFICATION, true);

export const OPTIONAL_AUTH = 'gw:optional-auth';
/** Public route that still reads the caller when a valid login is presented (new-api's TryUserAuth). */
export const OptionalAuth = () => SetMetadata(OPTIONAL_AUTH, true);

/** The authenticated caller; only on routes guarded by MinRole (or OptionalAuth, where it may be undefined). */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  return ctx.switchToHttp().getRequest<AuthedRequest>().principal;
});

/** The caller's address, honouring X-Forwarded-For only from TRUSTED_PROXIES (express `trust proxy`). */
export const ClientIp = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return req.ip ?? req.socket.remoteAddress ?? '';
});
