import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AdminRoute, body, CriticalRateLimit, CurrentUser, NotFoundError, UserRoute, withMessage, type Principal, idParam } from '@gw/core';
import { TwoFaCodeSchema, type TwoFaCodeRequest } from '@gw/contracts';
import { LoginService } from '../login/login.service.js';
import { TwoFactorService } from './two-factor.service.js';

const userId = idParam(() => new NotFoundError('user does not exist'));

/** new-api's `/api/user/2fa/*`, `/api/user/login/2fa` and the admin 2FA routes. */
@Controller('api/user')
export class TwoFactorController {
  constructor(
    private readonly twoFactor: TwoFactorService,
    private readonly login: LoginService,
  ) {}

  @Post('login/2fa')
  @HttpCode(200)
  @CriticalRateLimit()
  secondFactor(@Req() req: Request, @Res({ passthrough: true }) res: Response, @Body(body(TwoFaCodeSchema)) input: TwoFaCodeRequest) {
    return this.login.secondFactor(req, res, input.code);
  }

  @Get('2fa/status')
  @UserRoute()
  status(@CurrentUser() caller: Principal) {
    return this.twoFactor.status(caller.id);
  }

  @Post('2fa/setup')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  async setup(@CurrentUser() caller: Principal) {
    return withMessage('scan the QR code with an authenticator app, then enter its code to finish', await this.twoFactor.setup(caller.id));
  }

  @Post('2fa/enable')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  async enable(@CurrentUser() caller: Principal, @Body(body(TwoFaCodeSchema)) input: TwoFaCodeRequest) {
    await this.twoFactor.enable(caller.id, input.code);
    return withMessage('two-factor authentication is on');
  }

  @Post('2fa/disable')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  async disable(@CurrentUser() caller: Principal, @Body(body(TwoFaCodeSchema)) input: TwoFaCodeRequest) {
    await this.twoFactor.disable(caller.id, input.code, caller.sessionId);
    return withMessage('two-factor authentication is off');
  }

  @Post('2fa/backup_codes')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  async backupCodes(@CurrentUser() caller: Principal, @Body(body(TwoFaCodeSchema)) input: TwoFaCodeRequest) {
    return withMessage(
      'new backup codes generated; the old ones no longer work',
      await this.twoFactor.regenerateBackupCodes(caller.id, input.code),
    );
  }

  @Get('2fa/stats')
  @AdminRoute()
  stats() {
    return this.twoFactor.stats();
  }

  @Delete(':id/2fa')
  @AdminRoute()
  async adminDisable(@CurrentUser() caller: Principal, @Param('id', userId) id: number) {
    await this.twoFactor.adminDisable(caller, id);
    return withMessage('two-factor authentication of the user was turned off');
  }
}
