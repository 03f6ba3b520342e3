import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { body, ClientIp, CriticalRateLimit, CurrentUser, UserRoute, withMessage, type Principal } from '@gw/core';
import { EmailBindSchema, EmailQuerySchema, RegisterSchema, ResetPasswordSchema, type RegisterRequest } from '@gw/contracts';
import { AccountService } from './account.service.js';
import { TurnstileService } from './turnstile.service.js';

type EmailQuery = { email: string; turnstile: string };

@Controller('api')
export class AccountController {
  constructor(
    private readonly accounts: AccountService,
    private readonly turnstile: TurnstileService,
  ) {}

  @Post('user/register')
  @HttpCode(200)
  @CriticalRateLimit()
  async register(
    @Query('turnstile') token: string | undefined,
    @ClientIp() ip: string,
    @Body(body(RegisterSchema)) input: RegisterRequest,
  ) {
    await this.turnstile.check(typeof token === 'string' ? token : undefined, ip);
    await this.accounts.register(input);
  }

  @Get('verification')
  @CriticalRateLimit()
  async verification(@Query(body(EmailQuerySchema)) query: EmailQuery, @ClientIp() ip: string) {
    await this.turnstile.check(query.turnstile, ip);
    await this.accounts.sendVerification(query.email, ip);
  }

  @Get('reset_password')
  @CriticalRateLimit()
  async resetPassword(@Query(body(EmailQuerySchema)) query: EmailQuery, @ClientIp() ip: string) {
    await this.turnstile.check(query.turnstile, ip);
    await this.accounts.sendReset(query.email, ip);
  }

  @Post('user/reset')
  @HttpCode(200)
  @CriticalRateLimit()
  async reset(@Body(body(ResetPasswordSchema)) input: { email: string; token: string }) {
    return this.accounts.resetPassword(input.email, input.token);
  }

  @Post('oauth/email/bind')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  async bindEmail(@CurrentUser() caller: Principal, @Body(body(EmailBindSchema)) input: { email: string; code: string }) {
    await this.accounts.bindEmail(caller, input.email, input.code);
    return withMessage('bind');
  }

  /** GET kept for new-api clients; the New-Api-User header the guard requires keeps it out of reach of cross-site requests. */
  @Get('oauth/email/bind')
  @UserRoute()
  @CriticalRateLimit()
  async bindEmailGet(@CurrentUser() caller: Principal, @Query(body(EmailBindSchema)) input: { email: string; code: string }) {
    await this.accounts.bindEmail(caller, input.email, input.code);
    return withMessage('bind');
  }
}
