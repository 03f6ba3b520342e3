import { Controller, Get, Query } from '@nestjs/common';
import { AdminRoute, CurrentUser, parsePage, UserRoute, body, type Principal } from '@gw/core';
import { MjQuerySchema, type MjQuery } from '@gw/contracts';
import { MjLogService } from './mj-log.service.js';

/** The drawing log: `/api/mj/` over every task (admin), `/api/mj/self` over the caller's own. */
@Controller('api/mj')
export class MjLogController {
  constructor(private readonly logs: MjLogService) {}

  @Get()
  @AdminRoute()
  listAll(@Query(body(MjQuerySchema)) query: MjQuery, @Query() raw: Record<string, unknown>) {
    return this.logs.list(
      { channelId: query.channel_id, mjId: query.mj_id, start: query.start_timestamp, end: query.end_timestamp },
      parsePage(raw),
    );
  }

  @Get('self')
  @UserRoute()
  listOwn(@CurrentUser() principal: Principal, @Query(body(MjQuerySchema)) query: MjQuery, @Query() raw: Record<string, unknown>) {
    return this.logs.list(
      { userId: principal.id, mjId: query.mj_id, start: query.start_timestamp, end: query.end_timestamp },
      parsePage(raw),
    );
  }
}
