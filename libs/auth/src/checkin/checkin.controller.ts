import { Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { CriticalRateLimit, CurrentUser, UserRoute, withMessage, type Principal } from '@gw/core';
import { TurnstileService } from '@gw/user';
import { CheckinService } from './checkin.service.js';

@Controller('api/user/checkin')
@UserRoute()
export class CheckinController {
  constructor(
    private readonly checkins: CheckinService,
    private readonly turnstile: TurnstileService,
  ) {}

  @Get()
  status(@CurrentUser() caller: Principal, @Query('month') month: unknown) {
    return this.checkins.status(caller.id, typeof month === 'string' && month ? month : undefined);
  }

  @Post()
  @HttpCode(200)
  @CriticalRateLimit()
  async checkIn(@CurrentUser() caller: Principal, @Req() req: Request) {
    // new-api puts Turnstile in front of the check-in (bots farming rewards).
    await this.turnstile.check(typeof req.query.turnstile === 'string' ? req.query.turnstile : undefined, req.ip ?? '');
    return withMessage('checked in', await this.checkins.checkIn(caller.id));
  }
}
