import { Injectable, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerRequest } from '@nestjs/throttler';
import type { Request } from 'express';
import { TooManyRequestsError } from '../errors/app-error.js';
import { isApiPath } from '../http/relay-paths.js';
import { RATE_LIMIT_CLASS, type RateLimitClass } from './rate-limit.decorators.js';

/**
 * Applies new-api's per-IP limits: `global` to every console API call and the dashboard billing
 * routes, and `critical` only to the routes marked with its decorator (`search` is per user: SearchLimitGuard). Relay routes
 * have their own per-user model limit.
 */
@Injectable()
export class GatewayThrottlerGuard extends ThrottlerGuard {
  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const req = props.context.switchToHttp().getRequest<Request>();
    const name = props.throttler.name;
    if (name === 'global') {
      if (!isApiPath(req.path) && !req.path.includes('/dashboard/billing')) return true;
    } else if (name === 'search') {
      // Counted per user by SearchLimitGuard, once the caller is known.
      return true;
    } else {
      const wanted = this.reflector.getAllAndOverride<RateLimitClass | undefined>(RATE_LIMIT_CLASS, [
        props.context.getHandler(),
        props.context.getClass(),
      ]);
      if (wanted !== name) return true;
    }
    return super.handleRequest(props);
  }

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    const request = req as unknown as Request;
    return request.ip ?? request.socket.remoteAddress ?? 'unknown';
  }

  /** One counter per client and limit, across routes (the library default counts each route apart). */
  protected override generateKey(_context: ExecutionContext, tracker: string, name: string): string {
    return `${name}:${tracker}`;
  }

  protected override async throwThrottlingException(_context: ExecutionContext, _detail: ThrottlerLimitDetail): Promise<void> {
    throw new TooManyRequestsError();
  }
}
