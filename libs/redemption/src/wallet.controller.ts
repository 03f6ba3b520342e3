import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { body, CriticalRateLimit, CurrentUser, raw, UserRoute, withMessage, type Principal } from '@gw/core';
import {
  RedeemCodeSchema,
  TopUpAmountSchema,
  TopUpPaySchema,
  type RedeemCodeRequest,
  type TopUpAmountRequest,
  type TopUpPayRequest,
} from '@gw/contracts';
import { EpayOrderService } from './epay/epay-order.service.js';
import { RedeemService } from './redeem.service.js';

/** The wallet: redeem a code, quote and start an online payment, list one's own orders. */
@Controller('api/user')
@UserRoute()
export class WalletController {
  constructor(
    private readonly redeem: RedeemService,
    private readonly orders: EpayOrderService,
  ) {}

  /** Answers the quota credited, as new-api. */
  @Post('topup')
  @HttpCode(200)
  @CriticalRateLimit()
  topUp(@Body(body(RedeemCodeSchema)) input: RedeemCodeRequest, @CurrentUser() user: Principal) {
    return this.redeem.redeem(input.key, user);
  }

  /** new-api's console checks `message === 'success'` here; `success` keeps the envelope. */
  @Post('amount')
  @HttpCode(200)
  amount(@Body(body(TopUpAmountSchema)) input: TopUpAmountRequest, @CurrentUser() user: Principal) {
    return withMessage('success', this.orders.quote(input, user));
  }

  /** `{url, data}` at the top level (new-api's shape): the console posts `data` as a form to `url`. */
  @Post('pay')
  @HttpCode(200)
  @CriticalRateLimit()
  async pay(@Body(body(TopUpPaySchema)) input: TopUpPayRequest, @CurrentUser() user: Principal) {
    const form = await this.orders.create(input, user);
    return raw({ success: true, message: 'success', url: form.url, data: form.data });
  }

  @Get('topup/info')
  info() {
    return this.orders.info();
  }

  @Get('topup/self')
  listOwn(@CurrentUser() user: Principal, @Query() query: Record<string, unknown>) {
    return this.orders.listOwn(user, query);
  }
}
