import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CriticalRateLimit, CurrentUser, OptionalAuth, UnauthorizedError, UserRoute, withMessage, type Principal } from '@gw/core';
import { OAuthService, type OAuthOutcome } from './oauth.service.js';

const str = (value: unknown): string => (typeof value === 'string' ? value.slice(0, 512) : '');

function answer(outcome: OAuthOutcome) {
  return outcome.kind === 'bind' ? withMessage('bind') : outcome.user;
}

@Controller('api/oauth')
export class OAuthController {
  constructor(private readonly oauth: OAuthService) {}

  @Get('state')
  @CriticalRateLimit()
  state(@Req() req: Request, @Res({ passthrough: true }) res: Response, @Query('aff') aff: unknown) {
    return this.oauth.newState(req, res, str(aff));
  }

  @Get('github')
  @OptionalAuth()
  @CriticalRateLimit()
  async github(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Query() q: Record<string, unknown>,
    @CurrentUser() caller?: Principal,
  ) {
    return answer(await this.oauth.codeFlow('github', req, res, str(q.code), str(q.state), caller));
  }

  @Get('oidc')
  @OptionalAuth()
  @CriticalRateLimit()
  async oidc(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Query() q: Record<string, unknown>,
    @CurrentUser() caller?: Principal,
  ) {
    return answer(await this.oauth.codeFlow('oidc', req, res, str(q.code), str(q.state), caller));
  }

  @Get('linuxdo')
  @OptionalAuth()
  @CriticalRateLimit()
  async linuxdo(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Query() q: Record<string, unknown>,
    @CurrentUser() caller?: Principal,
  ) {
    return answer(await this.oauth.codeFlow('linuxdo', req, res, str(q.code), str(q.state), caller));
  }

  @Get('discord')
  @OptionalAuth()
  @CriticalRateLimit()
  async discord(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Query() q: Record<string, unknown>,
    @CurrentUser() caller?: Principal,
  ) {
    return answer(await this.oauth.codeFlow('discord', req, res, str(q.code), str(q.state), caller));
  }

  @Get('wechat')
  @CriticalRateLimit()
  async wechat(@Req() req: Request, @Res({ passthrough: true }) res: Response, @Query('code') code: unknown) {
    return answer(await this.oauth.wechat(str(code), req, res));
  }

  @Get('wechat/bind')
  @UserRoute()
  @CriticalRateLimit()
  async wechatBind(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Query('code') code: unknown,
    @CurrentUser() caller: Principal,
  ) {
    return answer(await this.oauth.wechat(str(code), req, res, caller));
  }

  @Post('wechat/bind')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  async wechatBindPost(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Query('code') queryCode: unknown,
    @Body() body: { code?: unknown } | undefined,
    @CurrentUser() caller: Principal,
  ) {
    return answer(await this.oauth.wechat(str(body?.code) || str(queryCode), req, res, caller));
  }

  @Get('telegram/login')
  @CriticalRateLimit()
  async telegramLogin(@Req() req: Request, @Res({ passthrough: true }) res: Response, @Query() q: Record<string, unknown>) {
    return answer(await this.oauth.telegram(q, req, res));
  }

  /** The widget's auth URL: the browser arrives here with its session cookie (no New-Api-User header). */
  @Get('telegram/bind')
  @OptionalAuth()
  @CriticalRateLimit()
  async telegramBind(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Query() q: Record<string, unknown>,
    @CurrentUser() caller?: Principal,
  ) {
    if (!caller) throw new UnauthorizedError();
    return answer(await this.oauth.telegram(q, req, res, caller));
  }
}
