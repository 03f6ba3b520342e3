import { Injectable } from '@nestjs/common';
import { OptionService } from '@gw/option';
import { UserService } from '@gw/user';
import type { RelayIdentity } from './relay-identity.js';
import { TokenRepository } from './token.repository.js';

export interface BillingSubscription {
  object: 'billing_subscription';
  has_payment_method: boolean;
  soft_limit_usd: number;
  hard_limit_usd: number;
  system_hard_limit_usd: number;
  access_until: number;
}

/**
 * new-api's `/dashboard/billing/*` and `/api/usage/token/`: balances read fresh from the database
 * (these are not hot-path calls), in dollars when DisplayInCurrencyEnabled.
 */
@Injectable()
export class TokenBillingService {
  constructor(
    private readonly tokens: TokenRepository,
    private readonly users: UserService,
    private readonly options: OptionService,
  ) {}

  async subscription(identity: RelayIdentity): Promise<BillingSubscription> {
    const token = await this.tokens.findById(identity.token.id);
    const user = await this.users.findById(identity.user.id);
    const perToken = this.options.get('DisplayTokenStatEnabled') && token !== null && !token.unlimitedQuota;
    // A limited token reports its own grant. An unlimited token reports the user's balance (new-api says
    // 100000000 there, which tells a client nothing about what it can really spend).
    const quota = perToken ? token.remainQuota + token.usedQuota : (user?.quota ?? 0) + (user?.usedQuota ?? 0);
    const amount = this.amount(quota);
    const expiry = token && token.expiredTime > 0 ? token.expiredTime : 0;
    return {
      object: 'billing_subscription',
      has_payment_method: true,
      soft_limit_usd: amount,
      hard_limit_usd: amount,
      system_hard_limit_usd: amount,
      access_until: expiry,
    };
  }

  /** `total_usage` is in cents of the used quota. */
  async usage(identity: RelayIdentity): Promise<{ object: 'list'; total_usage: number }> {
    const token = await this.tokens.findById(identity.token.id);
    let used: number;
    if (this.options.get('DisplayTokenStatEnabled') && token) used = token.usedQuota;
    else used = (await this.users.findById(identity.user.id))?.usedQuota ?? 0;
    return { object: 'list', total_usage: this.amount(used) * 100 };
  }

  /** new-api's GetTokenUsage (note `code`, not `success`). */
  async tokenUsage(identity: RelayIdentity) {
    const token = await this.tokens.findById(identity.token.id);
    const snapshot = identity.token;
    const remain = token?.remainQuota ?? snapshot.remainQuota;
    const used = token?.usedQuota ?? snapshot.usedQuota;
    const expiry = token?.expiredTime ?? snapshot.expiredTime;
    return {
      code: true,
      message: 'ok',
      data: {
        object: 'token_usage',
        name: snapshot.name,
        total_granted: remain + used,
        total_used: used,
        total_available: remain,
        unlimited_quota: snapshot.unlimitedQuota,
        model_limits: Object.fromEntries(snapshot.modelLimits.map((m) => [m, true])),
        model_limits_enabled: snapshot.modelLimitsEnabled,
        expires_at: expiry === -1 ? 0 : expiry,
      },
    };
  }

  private amount(quota: number): number {
    return this.options.get('DisplayInCurrencyEnabled') ? quota / this.options.get('QuotaPerUnit') : quota;
  }
}
