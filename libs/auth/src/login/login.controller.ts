import { Body, Controller, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { body, CriticalRateLimit } from '@gw/core';
import { LoginSchema } from '@gw/contracts';
import type { UserEntity } from '@gw/user';
import { SessionService } from '../session/session.service.js';
import { PasswordLoginGuard } from './local.strategy.js';
import { LoginService } from './login.service.js';

@Controller('api/user')
export class LoginController {
  constructor(
    private readonly login: LoginService,
    private readonly sessions: SessionService,
  ) {}

  /**
   * The `local` passport strategy checks the password; a valid user arrives as `req.user`. The body is declared with
   * its contract too, so the API document describes it (the guard has already refused a malformed one).
   */
  @Post('login')
  @HttpCode(200)
  @CriticalRateLimit()
  @UseGuards(PasswordLoginGuard)
  signIn(@Req() req: Request & { user: UserEntity }, @Res({ passthrough: true }) res: Response, @Body(body(LoginSchema)) _input: unknown) {
    return this.login.afterPassword(req, res, req.user);
  }

  @Get('logout')
  async signOut(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.sessions.end(req, res);
  }
}
