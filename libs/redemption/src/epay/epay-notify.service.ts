import { Injectable, Logger } from '@nestjs/common';
import { nowSeconds } from '@gw/database';
import { LogService, LogType } from '@gw/log';
import { OptionService } from '@gw/option';
import { UserBalance, UserHooks } from '@gw/user';
import { formatQuota, quotaDisplay } from '../quota-format.js';
import { EPAY_PROVIDER, TopUpStatus } from '../top-up.entity.js';
import { TopUpRepository, WalletRepository } from '../top-up.repository.js';
import { moneyToCents, quotaForUnits } from './epay-pricing.js';
import { epayVerify } from './epay-sign.js';
import { epayMerchant } from './epay-order.service.js';

/** What epay expects as the body: 'success' stops its retries, anything else makes it deliver again. */
export type NotifyAnswer = 'success' | 'fail';

/**
 * The epay payment callback. Everything in it is attacker-controlled until the signature checks out, and
 * even then it may be a replay: an order is credited only by the transaction that flips it from pending
 * to success, so any number of (concurrent) deliveries credit once.
 */
@Injectable()
export class EpayNotifyService {
  private readonly logger = new Logger('EpayNotify');

  constructor(
    private readonly orders: TopUpRepository,
    private readonly wallet: WalletRepository,
    private readonly balances: UserBalance,
    private readonly logs: LogService,
    private readonly options: OptionService,
    private readonly hooks: UserHooks,
  ) {}

  async handle(params: Record<string, string>): Promise<NotifyAnswer> {
    try {
      return await this.process(params);
    } catch (error) {
      this.logger.error(`epay notify failed: ${(error as Error).message}`);
      return 'fail';
    }
  }

  private async process(params: Record<string, string>): Promise<NotifyAnswer> {
    const merchant = epayMerchant(this.options);
    if (!merchant) return this.reject('online top-up is not enabled');
    if (!epayVerify(params, merchant.key)) return this.reject('bad signature');
    if (params.trade_status !== 'TRADE_SUCCESS') return this.reject(`trade_status ${params.trade_status ?? '(none)'}`);
    if (params.pid !== merchant.pid) return this.reject('pid does not match EpayId');

    const order = params.out_trade_no ? await this.orders.findByTradeNo(params.out_trade_no) : null;
    if (!order || order.paymentProvider !== EPAY_PROVIDER) return this.reject('unknown order');
    if (moneyToCents(params.money) !== Math.round(Number(order.money) * 100)) return this.reject(`amount mismatch on ${order.tradeNo}`);
    if (order.status === TopUpStatus.Success) return 'success';
    if (order.status !== TopUpStatus.Pending) return this.reject(`order ${order.tradeNo} is ${order.status}`);

    const quota = quotaForUnits(order.amount, this.options.get('QuotaPerUnit'));
    const outcome = await this.balances.transaction(async (credits, manager) => {
      if (!(await this.orders.markPaid(manager, order.tradeNo, nowSeconds()))) {
        // Another delivery completed it first (success), or it expired meanwhile (fail).
        const current = await this.orders.findByTradeNo(order.tradeNo, manager);
        return current?.status === TopUpStatus.Success ? 'duplicate' : 'stale';
      }
      if (!(await credits.credit(order.userId, quota)))
        throw new Error(`user ${order.userId} of ${order.tradeNo} is gone or at the maximum quota`);
      const username = await this.wallet.username(manager, order.userId);
      await this.logs.recordNow(
        {
          userId: order.userId,
          username,
          type: LogType.TopUp,
          quota,
          content: `online top-up succeeded, quota +${formatQuota(quota, quotaDisplay(this.options))}, paid ${Number(order.money).toFixed(2)} (order ${order.tradeNo})`,
        },
        manager,
      );
      return 'credited';
    });
    if (outcome === 'stale') return this.reject(`order ${order.tradeNo} is no longer pending`);
    if (outcome === 'credited') this.hooks.userChanged(order.userId);
    return 'success';
  }

  private reject(reason: string): NotifyAnswer {
    this.logger.warn(`epay notify rejected: ${reason}`);
    return 'fail';
  }
}
