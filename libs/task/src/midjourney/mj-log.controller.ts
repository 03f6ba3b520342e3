import { Controller, Get, Query } from '@nestjs/common';
import { AdminRoute, CurrentUser, parsePage, toPage, UserRoute, body, type PageRequest, type Principal } from '@gw/core';
import { MjQuerySchema, type MjQuery } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { MjRepository, type MjListFilter } from './mj.repository.js';
import { toMjListItem } from './mj-view.js';

/** The drawing log: `/api/mj/` over every task (admin), `/api/mj/self` over the caller's own. */
@Controller('api/mj')
export class MjLogController {
  constructor(
    private readonly rows: MjRepository,
    private readonly options: OptionService,
  ) {}

  @Get()
  @AdminRoute()
  listAll(@Query(body(MjQuerySchema)) query: MjQuery, @Query() raw: Record<string, unknown>) {
    return this.list({ channelId: query.channel_id, mjId: query.mj_id, start: query.start_timestamp, end: query.end_timestamp }, parsePage(raw));
  }

  @Get('self')
  @UserRoute()
  listOwn(@CurrentUser() principal: Principal, @Query(body(MjQuerySchema)) query: MjQuery, @Query() raw: Record<string, unknown>) {
    return this.list({ userId: principal.id, mjId: query.mj_id, start: query.start_timestamp, end: query.end_timestamp }, parsePage(raw));
  }

  private async list(filter: MjListFilter, page: PageRequest) {
    const [rows, total] = await this.rows.list(filter, page.offset, page.pageSize);
    const forward = { enabled: this.options.get('MjForwardUrlEnabled'), serverAddress: this.options.get('ServerAddress') };
    return toPage(rows.map((row) => toMjListItem(row, forward)), total, page);
  }
}
