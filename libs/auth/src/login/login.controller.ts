import { Controller, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CriticalRateLimit } from '@gw/core';
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

  /** The `local` passport strategy checks the password; a valid user arrives as `req.user`. */
  @Post('login')
  @HttpCode(200)
  @CriticalRateLimit()
  @UseGuards(PasswordLoginGuard)
  signIn(@Req() req: Request & { user: UserEntity }, @Res({ passthrough: true }) res: Response) {
    return this.login.afterPassword(req, res, req.user);
  }

  @Get('logout')
  async signOut(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.sessions.end(req, res);
  }
}
