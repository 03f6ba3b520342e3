import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  body,
  CriticalRateLimit,
  CurrentUser,
  NotFoundError,
  OptionalAuth,
  RootRoute,
  withMessage,
  type Principal,
  idParam,
} from '@gw/core';
import { CustomOAuthProviderSchema, DiscoverySchema, type CustomOAuthProviderRequest } from '@gw/contracts';
import { CustomOAuthAdminService } from './custom-oauth-admin.service.js';
import { CustomOAuthLoginService } from './custom-oauth-login.service.js';
import type { ProvenIdentity } from '../oauth/identity.js';
import { SignInWith } from '../oauth/third-party.guard.js';

const providerId = idParam(() => new NotFoundError('provider not found'));
const str = (value: unknown): string => (typeof value === 'string' ? value.slice(0, 512) : '');

/** Root's `/api/custom-oauth-provider`. */
@Controller('api/custom-oauth-provider')
@RootRoute()
export class CustomOAuthProviderController {
  constructor(private readonly admin: CustomOAuthAdminService) {}

  @Post('discovery')
  @HttpCode(200)
  discover(@Body(body(DiscoverySchema)) input: { well_known_url: string; well_known: string }) {
    return this.admin.discover(input.well_known_url || input.well_known);
  }

  @Get()
  list() {
    return this.admin.list();
  }

  @Get(':id')
  get(@Param('id', providerId) id: number) {
    return this.admin.get(id);
  }

  @Post()
  @HttpCode(200)
  async create(@Body(body(CustomOAuthProviderSchema)) input: CustomOAuthProviderRequest) {
    return withMessage('provider created', await this.admin.create(input));
  }

  @Put(':id')
  async update(@Param('id', providerId) id: number, @Body(body(CustomOAuthProviderSchema)) input: CustomOAuthProviderRequest) {
    return withMessage('provider updated', await this.admin.update(id, input));
  }

  @Delete(':id')
  async remove(@Param('id', providerId) id: number) {
    await this.admin.remove(id);
    return withMessage('provider deleted');
  }
}

/** `GET /api/oauth/:slug` for a custom provider; mounted after the built-in `/api/oauth/*` routes. */
@Controller('api/oauth')
export class CustomOAuthLoginController {
  constructor(private readonly login: CustomOAuthLoginService) {}

  @Get(':provider')
  @OptionalAuth()
  @CriticalRateLimit()
  @SignInWith('custom')
  async callback(
    @Req() req: Request & { user: Extract<ProvenIdentity, { provider: 'custom' }> },
    @Res({ passthrough: true }) res: Response,
    @CurrentUser() caller?: Principal,
  ) {
    const outcome = await this.login.complete(req.user, req, res, caller);
    return outcome.kind === 'bind' ? withMessage('bind') : outcome.user;
  }
}
