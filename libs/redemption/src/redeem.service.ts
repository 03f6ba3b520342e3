import { Injectable } from '@nestjs/common';
import { BusinessError, type Principal } from '@gw/core';
import { nowSeconds } from '@gw/database';
import { LogService, LogType } from '@gw/log';
import { OptionService } from '@gw/option';
import { UserBalance, UserHooks } from '@gw/user';
import { formatQuota, quotaDisplay } from './quota-format.js';
import { RedemptionStatus } from './redemption.entity.js';
import { RedemptionRepository } from './redemption.repository.js';

const ALREADY_USED = 'this redemption code has already been used';

/** `POST /api/user/topup`: a code credits exactly one user exactly once, however many try at once. */
@Injectable()
export class RedeemService {
  constructor(
    private readonly codes: RedemptionRepository,
    private readonly balances: UserBalance,
    private readonly logs: LogService,
    private readonly options: OptionService,
    private readonly hooks: UserHooks,
  ) {}

  /** Answers the quota credited (new-api's `data`). */
  async redeem(key: string, user: Principal): Promise<number> {
    if (!key) throw new BusinessError('please enter a redemption code');
    // This read only chooses the message; the conditional update below is what decides.
    const code = await this.codes.findByKey(key);
    if (!code) throw new BusinessError('invalid redemption code');
    if (code.status === RedemptionStatus.Disabled) throw new BusinessError('this redemption code has been disabled');
    if (code.status !== RedemptionStatus.Unused) throw new BusinessError(ALREADY_USED);
    const now = nowSeconds();
    if (code.expiredTime !== 0 && code.expiredTime < now) throw new BusinessError('this redemption code has expired');

    const credited = await this.balances.transaction(async (wallet, manager) => {
      if (!(await this.codes.markUsed(manager, code.id, user.id, now))) return null;
      // Read inside the transaction, after the flip: an edit that raced the read above cannot change what is credited.
      const quota = await this.codes.quotaOf(manager, code.id);
      // Throwing rolls the code back to unused. The caller exists (the guard just read it), so a refusal
      // here means the balance would pass the largest exact quota.
      if (!(await wallet.credit(user.id, quota))) throw new BusinessError('the balance would exceed the maximum quota');
      await this.logs.recordNow(
        {
          userId: user.id,
          username: user.username,
          type: LogType.TopUp,
          quota,
          content: `redeemed code, quota +${this.format(quota)}, code id ${code.id}`,
        },
        manager,
      );
      return quota;
    });
    if (credited === null) throw new BusinessError(ALREADY_USED);
    this.hooks.userChanged(user.id);
    return credited;
  }

  private format(quota: number): string {
    return formatQuota(quota, quotaDisplay(this.options));
  }
}
