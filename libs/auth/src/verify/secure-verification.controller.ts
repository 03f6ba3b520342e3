import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { body, CriticalRateLimit, CurrentUser, UserRoute, withMessage, type Principal } from '@gw/core';
import { SecureVerifySchema, type SecureVerifyRequest } from '@gw/contracts';
import { SecureVerificationService } from './secure-verification.service.js';

@Controller('api/verify')
export class SecureVerificationController {
  constructor(private readonly verification: SecureVerificationService) {}

  @Post()
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  async verify(@CurrentUser() caller: Principal, @Body(body(SecureVerifySchema)) input: SecureVerifyRequest) {
    return withMessage('verified', await this.verification.verify(caller, input.method, input.code, input.password));
  }
}
