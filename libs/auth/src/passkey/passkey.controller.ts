import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Request, Response } from 'express';
import { AdminRoute, body, CriticalRateLimit, CurrentUser, NotFoundError, UserRoute, withMessage, type Principal, idParam } from '@gw/core';
import { PasskeyResponseSchema, type PasskeyResponse } from '@gw/contracts';
import { LoginService } from '../login/login.service.js';
import { SecureVerificationService } from '../verify/secure-verification.service.js';
import { PasskeyService } from './passkey.service.js';

const userId = idParam(() => new NotFoundError('user does not exist'));

/** new-api's passkey routes under `/api/user`. */
@Controller('api/user')
export class PasskeyController {
  constructor(
    private readonly passkeys: PasskeyService,
    private readonly login: LoginService,
    private readonly verification: SecureVerificationService,
  ) {}

  @Post('passkey/login/begin')
  @HttpCode(200)
  @CriticalRateLimit()
  loginBegin(@Req() req: Request) {
    return this.passkeys.loginBegin(req);
  }

  @Post('passkey/login/finish')
  @HttpCode(200)
  @CriticalRateLimit()
  async loginFinish(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Body(body(PasskeyResponseSchema)) input: PasskeyResponse,
  ) {
    const user = await this.passkeys.loginFinish(req, input as unknown as AuthenticationResponseJSON);
    return this.login.finishLogin(req, res, user);
  }

  @Get('passkey')
  @UserRoute()
  status(@CurrentUser() caller: Principal) {
    return this.passkeys.status(caller.id);
  }

  /** Removes every passkey (new-api), or one with `?credential_id=`. */
  @Delete('passkey')
  @UserRoute()
  async remove(@CurrentUser() caller: Principal, @Query('credential_id') credentialId: unknown) {
    await this.passkeys.remove(caller.id, typeof credentialId === 'string' && credentialId ? credentialId.slice(0, 512) : undefined);
    return withMessage('passkey removed');
  }

  @Post('passkey/register/begin')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  registerBegin(@Req() req: Request, @CurrentUser() caller: Principal) {
    return this.passkeys.registerBegin(req, caller.id);
  }

  @Post('passkey/register/finish')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  async registerFinish(@Req() req: Request, @CurrentUser() caller: Principal, @Body(body(PasskeyResponseSchema)) input: PasskeyResponse) {
    await this.passkeys.registerFinish(req, caller.id, input as unknown as RegistrationResponseJSON);
    return withMessage('passkey registered');
  }

  @Post('passkey/verify/begin')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  verifyBegin(@Req() req: Request, @CurrentUser() caller: Principal) {
    return this.passkeys.verifyBegin(req, caller.id);
  }

  @Post('passkey/verify/finish')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  async verifyFinish(@Req() req: Request, @CurrentUser() caller: Principal, @Body(body(PasskeyResponseSchema)) input: PasskeyResponse) {
    await this.passkeys.verifyFinish(req, caller.id, input as unknown as AuthenticationResponseJSON);
    await this.verification.passkeyReady(caller);
    return withMessage('passkey verified');
  }

  @Delete(':id/reset_passkey')
  @AdminRoute()
  async adminReset(@CurrentUser() caller: Principal, @Param('id', userId) id: number) {
    await this.passkeys.adminReset(caller, id);
    return withMessage('the user’s passkeys were reset');
  }
}
