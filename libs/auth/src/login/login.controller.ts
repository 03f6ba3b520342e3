import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { body, BusinessError, CriticalRateLimit } from '@gw/core';
import { LoginSchema, type LoginRequest } from '@gw/contracts';
import { SessionService } from '../session/session.service.js';
import { LoginService } from './login.service.js';

@Controller('api/user')
export class LoginController {
  constructor(
    private readonly login: LoginService,
    private readonly sessions: SessionService,
  ) {}

  @Post('login')
  @HttpCode(200)
  @CriticalRateLimit()
  signIn(@Req() req: Request, @Res({ passthrough: true }) res: Response, @Body(body(LoginSchema)) request: LoginRequest) {
    // A cross-site HTML form can post urlencoded or multipart bodies, never JSON without a CORS preflight:
    // JSON only keeps another site from logging a visitor into the attacker's account (login CSRF, threats A3).
    if (!req.is('application/json')) throw new BusinessError('the login request must be sent as JSON');
    return this.login.login(req, res, request);
  }

  @Get('logout')
  async signOut(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.sessions.end(req, res);
  }
}
