import { Injectable, SetMetadata, UseGuards, applyDecorators, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import passport from 'passport';
import type { Request, Response } from 'express';
import { UnauthorizedError } from '@gw/core';
import type { BuiltInProvider, ProvenIdentity } from './identity.js';
import { CustomOAuthStrategy } from './strategies/custom-oauth.strategy.js';
import { DiscordStrategy } from './strategies/discord.strategy.js';
import { GitHubStrategy } from './strategies/github.strategy.js';
import { LinuxDoStrategy } from './strategies/linuxdo.strategy.js';
import { OidcStrategy } from './strategies/oidc.strategy.js';
import { TelegramStrategy } from './strategies/telegram.strategy.js';
import { WeChatStrategy } from './strategies/wechat.strategy.js';

type StrategyName = BuiltInProvider | 'custom';
const STRATEGY = 'third-party-strategy';
const BIND_ONLY = 'third-party-bind-only';

/**
 * Runs the named third-party strategy through this app's own passport instance (as the password
 * login does: passport's default instance is process-wide, and two gateways in one process would
 * share it). A proven identity arrives as `req.user`.
 */
@Injectable()
export class ThirdPartyLoginGuard implements CanActivate {
  private readonly passport = new passport.Passport();

  constructor(
    private readonly reflector: Reflector,
    github: GitHubStrategy,
    oidc: OidcStrategy,
    linuxdo: LinuxDoStrategy,
    discord: DiscordStrategy,
    wechat: WeChatStrategy,
    telegram: TelegramStrategy,
    custom: CustomOAuthStrategy,
  ) {
    const strategies = { github, oidc, linuxdo, discord, wechat, telegram, custom };
    for (const [name, strategy] of Object.entries(strategies)) this.passport.use(name, strategy);
  }

  canActivate(context: ExecutionContext): Promise<boolean> {
    const name = this.reflector.get<StrategyName>(STRATEGY, context.getHandler());
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { user?: ProvenIdentity; principal?: unknown }>();
    // A bind route answers a guest 401 before the provider is asked anything (new-api: UserAuth first).
    if (this.reflector.get<boolean>(BIND_ONLY, context.getHandler()) && !req.principal) return Promise.reject(new UnauthorizedError());
    const res = http.getResponse<Response>();
    return new Promise((resolve, reject) => {
      const done = (error: unknown, proof: ProvenIdentity | false) => {
        if (error) return reject(error);
        if (!proof) return reject(new UnauthorizedError());
        req.user = proof;
        resolve(true);
      };
      this.passport.authenticate(name, { session: false }, done)(req, res, (error?: unknown) => (error ? reject(error) : resolve(false)));
    });
  }
}

/** Marks a callback route as signed in through one passport strategy; `bindOnly` routes need a logged-in caller first. */
export const SignInWith = (name: StrategyName, options: { bindOnly?: boolean } = {}) =>
  applyDecorators(SetMetadata(STRATEGY, name), SetMetadata(BIND_ONLY, options.bindOnly === true), UseGuards(ThirdPartyLoginGuard));
