import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { InjectThrottlerOptions, InjectThrottlerStorage, type ThrottlerModuleOptions, type ThrottlerStorage } from '@nestjs/throttler';
import type { AuthedRequest } from '../auth/principal.js';
import { TooManyRequestsError } from '../errors/app-error.js';

/**
 * new-api's SearchRateLimit counts per user id, not per address: colleagues behind one NAT each get their
 * own searches. The global throttler guard runs before the auth guard and knows only the address, so this
 * limit is a route guard (route guards run after the global ones), keyed by the caller the auth guard set.
 * It shares the throttler's storage (Redis, the cluster's primary, or memory) and the `search` rule.
 */
@Injectable()
export class SearchLimitGuard implements CanActivate {
  private readonly rule?: { limit: number; ttl: number };

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
  ) {
    const throttlers = Array.isArray(options) ? options : (options.throttlers ?? []);
    const search = throttlers.find((t) => t.name === 'search');
    if (search) this.rule = { limit: Number(search.limit), ttl: Number(search.ttl) };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const user = context.switchToHttp().getRequest<AuthedRequest>().principal;
    if (!this.rule || !user) return true;
    const { limit, ttl } = this.rule;
    const { isBlocked } = await this.storage.increment(`search:user:${user.id}`, ttl, limit, ttl, 'search');
    if (isBlocked) throw new TooManyRequestsError();
    return true;
  }
}
