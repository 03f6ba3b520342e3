import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CriticalRateLimit, CurrentUser, OptionalAuth, UnauthorizedError, UserRoute, withMessage, type Principal } from '@gw/core';
import { AuthorizeLinkService } from './authorize-link.service.js';
import { type BuiltInProvider, type ProvenIdentity, str } from './identity.js';
import { OAuthStateStore } from './oauth-state.js';
import { OAuthService, type OAuthOutcome } from './oauth.service.js';
import { SignInWith } from './third-party.guard.js';

type BuiltInProof = Extract<ProvenIdentity, { provider: BuiltInProvider }>;
type ProvenRequest = Request & { user: BuiltInProof };

function answer(outcome: OAuthOutcome) {
  return outcome.kind === 'bind' ? withMessage('bind') : outcome.user;
}

/** Built-in third-party logins: each callback is a passport strategy (see third-party.guard.ts); this turns its proof into a login or a binding. */
@Controller('api/oauth')
export class OAuthController {
  constructor(
    private readonly oauth: OAuthService,
    private readonly states: OAuthStateStore,
    private readonly links: AuthorizeLinkService,
  ) {}

  @Get('state')
  @CriticalRateLimit()
  state(@Req() req: Request, @Res({ passthrough: true }) res: Response, @Query('aff') aff: unknown) {
    return this.states.issue(req, res, { aff: str(aff) });
  }

  /** The authorize link with state, and PKCE and nonce where the provider supports them (OIDC, GitHub, Discord and custom providers). */
  @Get(':provider/authorize')
  @CriticalRateLimit()
  authorize(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Param('provider') provider: string,
    @Query('aff') aff: unknown,
  ) {
    return this.links.build(String(provider).slice(0, 64), req, res, str(aff));
  }

  @Get('github')
  @OptionalAuth()
  @CriticalRateLimit()
  @SignInWith('github')
  async github(@Req() req: ProvenRequest, @Res({ passthrough: true }) res: Response, @CurrentUser() caller?: Principal) {
    return answer(await this.oauth.complete(req.user, req, res, caller));
  }

  @Get('oidc')
  @OptionalAuth()
  @CriticalRateLimit()
  @SignInWith('oidc')
  async oidc(@Req() req: ProvenRequest, @Res({ passthrough: true }) res: Response, @CurrentUser() caller?: Principal) {
    return answer(await this.oauth.complete(req.user, req, res, caller));
  }

  @Get('linuxdo')
  @OptionalAuth()
  @CriticalRateLimit()
  @SignInWith('linuxdo')
  async linuxdo(@Req() req: ProvenRequest, @Res({ passthrough: true }) res: Response, @CurrentUser() caller?: Principal) {
    return answer(await this.oauth.complete(req.user, req, res, caller));
  }

  @Get('discord')
  @OptionalAuth()
  @CriticalRateLimit()
  @SignInWith('discord')
  async discord(@Req() req: ProvenRequest, @Res({ passthrough: true }) res: Response, @CurrentUser() caller?: Principal) {
    return answer(await this.oauth.complete(req.user, req, res, caller));
  }

  @Get('wechat')
  @CriticalRateLimit()
  @SignInWith('wechat')
  async wechat(@Req() req: ProvenRequest, @Res({ passthrough: true }) res: Response) {
    return answer(await this.oauth.complete(req.user, req, res));
  }

  @Get('wechat/bind')
  @UserRoute()
  @CriticalRateLimit()
  @SignInWith('wechat')
  async wechatBind(@Req() req: ProvenRequest, @Res({ passthrough: true }) res: Response, @CurrentUser() caller: Principal) {
    return answer(await this.oauth.complete(req.user, req, res, caller));
  }

  @Post('wechat/bind')
  @HttpCode(200)
  @UserRoute()
  @CriticalRateLimit()
  @SignInWith('wechat')
  async wechatBindPost(@Req() req: ProvenRequest, @Res({ passthrough: true }) res: Response, @CurrentUser() caller: Principal) {
    return answer(await this.oauth.complete(req.user, req, res, caller));
  }

  @Get('telegram/login')
  @CriticalRateLimit()
  @SignInWith('telegram')
  async telegramLogin(@Req() req: ProvenRequest, @Res({ passthrough: true }) res: Response) {
    return answer(await this.oauth.complete(req.user, req, res));
  }

  /**
   * The widget's auth URL: the browser navigates here with its session cookie (no New-Api-User header), so
   * a binding sends it back to the personal page, as new-api sends it back to its settings; a refusal is
   * the usual JSON answer.
   */
  @Get('telegram/bind')
  @OptionalAuth()
  @CriticalRateLimit()
  @SignInWith('telegram', { bindOnly: true })
  async telegramBind(@Req() req: ProvenRequest, @Res() res: Response, @CurrentUser() caller?: Principal): Promise<void> {
    if (!caller) throw new UnauthorizedError();
    await this.oauth.complete(req.user, req, res, caller);
    res.redirect(302, '/personal');
  }
}
