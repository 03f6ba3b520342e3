import { Injectable } from '@nestjs/common';
import { BusinessError, parsePage, toPage, type Page, type Principal } from '@gw/core';
import type { EpayForm, TopUpAmountRequest, TopUpPayRequest, TopUpView } from '@gw/contracts';
import { nowSeconds } from '@gw/database';
import { OptionService } from '@gw/option';
import { randomAlphanumeric } from '../support/random-key.js';
import { EPAY_PROVIDER, TopUpStatus } from '../top-up.entity.js';
import { TopUpRepository } from '../top-up.repository.js';
import { toTopUpView } from '../redemption.view.js';
import { centsToMoney, minimumAmount, priceInCents, unitsBought, type TopUpPricing } from './epay-pricing.js';
import { epayPurchaseForm, epaySubmitUrl } from './epay-sign.js';

export const NOTIFY_PATH = '/api/user/epay/notify';

/** The merchant settings, or undefined while online top-up is off (any of the three missing). */
export function epayMerchant(options: OptionService): { payAddress: string; pid: string; key: string } | undefined {
  const payAddress = options.get('PayAddress');
  const pid = options.get('EpayId');
  const key = options.get('EpayKey');
  return payAddress && pid && key ? { payAddress, pid, key } : undefined;
}

/** Quotes and creates online top-up orders (`/api/user/amount`, `/api/user/pay`) and lists a user's orders. */
@Injectable()
export class EpayOrderService {
  constructor(
    private readonly orders: TopUpRepository,
    private readonly options: OptionService,
  ) {}

  /** What the wallet page needs to offer online top-up (new-api's `/api/user/topup/info`); no merchant secret. */
  info(): {
    enable_online_topup: boolean;
    min_topup: number;
    pay_methods: unknown[];
    topup_link: string;
    amount_options: number[];
    discount: Record<string, number>;
  } {
    return {
      enable_online_topup: epayMerchant(this.options) !== undefined,
      min_topup: this.options.get('MinTopUp'),
      pay_methods: this.payMethodList(),
      topup_link: this.options.get('TopUpLink'),
      amount_options: [],
      discount: {},
    };
  }

  /** The price to pay, as new-api: a string with two decimals. */
  quote(input: TopUpAmountRequest, user: Principal): string {
    this.merchant();
    return centsToMoney(this.price(input.amount, user));
  }

  async create(input: TopUpPayRequest, user: Principal): Promise<EpayForm> {
    const merchant = this.merchant();
    const cents = this.price(input.amount, user);
    if (!this.paymentMethods().includes(input.payment_method)) throw new BusinessError('payment method does not exist');
    const callbackBase = (this.options.get('CustomCallbackAddress') || this.options.get('ServerAddress')).replace(/\/+$/, '');
    const siteBase = this.options.get('ServerAddress').replace(/\/+$/, '');
    if (!callbackBase || !siteBase) throw new BusinessError('server address is not set, ask the admin to set it before online top-up');

    const now = nowSeconds();
    const tradeNo = `USR${user.id}NO${randomAlphanumeric(8)}${now}`;
    const money = centsToMoney(cents);
    await this.orders.insert({
      userId: user.id,
      amount: unitsBought(input.amount, this.pricing(user)),
      money: cents / 100,
      tradeNo,
      paymentMethod: input.payment_method,
      paymentProvider: EPAY_PROVIDER,
      createTime: now,
      status: TopUpStatus.Pending,
    });
    const data = epayPurchaseForm({
      pid: merchant.pid,
      key: merchant.key,
      type: input.payment_method,
      tradeNo,
      notifyUrl: `${callbackBase}${NOTIFY_PATH}`,
      returnUrl: `${siteBase}/topup`,
      name: `TUC${input.amount}`,
      money,
    });
    return { url: epaySubmitUrl(merchant.payAddress), data };
  }

  async listOwn(user: Principal, query: Record<string, unknown>): Promise<Page<TopUpView>> {
    const request = parsePage(query);
    const [rows, total] = await this.orders.pageOfUser(user.id, request);
    return toPage(rows.map(toTopUpView), total, request);
  }

  private merchant() {
    const merchant = epayMerchant(this.options);
    if (!merchant) throw new BusinessError('admin has not enabled online top-up');
    return merchant;
  }

  private price(amount: number, user: Principal): number {
    const pricing = this.pricing(user);
    const min = minimumAmount(pricing);
    if (amount < min) throw new BusinessError(`top-up amount cannot be below minimum: ${min}`);
    const cents = priceInCents(amount, pricing);
    if (cents < 1) throw new BusinessError('top-up amount is too low');
    return cents;
  }

  private pricing(user: Principal): TopUpPricing {
    return {
      tokensDisplay: this.options.get('general_setting.quota_display_type') === 'TOKENS',
      quotaPerUnit: this.options.get('QuotaPerUnit'),
      price: this.options.get('Price'),
      groupRatio: this.options.get('TopupGroupRatio')[user.group],
      minTopUp: this.options.get('MinTopUp'),
    };
  }

  /** PayMethods has no shape check in the option registry, so whatever JSON the admin saved is read defensively. */
  private payMethodList(): unknown[] {
    const methods = this.options.get('PayMethods') as unknown;
    return Array.isArray(methods) ? methods : [];
  }

  private paymentMethods(): string[] {
    return this.payMethodList().flatMap((m) => {
      const type = m && typeof m === 'object' ? (m as { type?: unknown }).type : undefined;
      return typeof type === 'string' ? [type] : [];
    });
  }
}
