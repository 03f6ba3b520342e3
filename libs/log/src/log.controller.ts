import { Controller, Delete, Get, Query } from '@nestjs/common';
import { AdminRoute, BusinessError, CurrentUser, parsePage, SearchRateLimit, UserRoute, body, type Principal } from '@gw/core';
import { DeleteLogsSchema, LogQuerySchema, type LogQuery } from '@gw/contracts';
import { LogQueryService } from './log-query.service.js';

/** new-api marks the keyword searches deprecated: they answer success:false and point at the filters. */
const SEARCH_DEPRECATED = 'log search is deprecated, use the filters of the log list instead';

/** new-api's `/api/log`: admin views over every row, `self` views over the caller's own. */
@Controller('api/log')
export class LogController {
  constructor(private readonly logs: LogQueryService) {}

  @Get()
  @AdminRoute()
  list(@Query(body(LogQuerySchema)) query: LogQuery, @Query() raw: Record<string, unknown>) {
    return this.logs.listAll(query, parsePage(raw));
  }

  @Get('self')
  @UserRoute()
  listOwn(@CurrentUser() principal: Principal, @Query(body(LogQuerySchema)) query: LogQuery, @Query() raw: Record<string, unknown>) {
    return this.logs.listOwn(principal, query, parsePage(raw));
  }

  @Get('stat')
  @AdminRoute()
  stat(@Query(body(LogQuerySchema)) query: LogQuery) {
    return this.logs.statAll(query);
  }

  @Get('self/stat')
  @UserRoute()
  statOwn(@CurrentUser() principal: Principal, @Query(body(LogQuerySchema)) query: LogQuery) {
    return this.logs.statOwn(principal, query);
  }

  @Get('search')
  @AdminRoute()
  search(): never {
    throw new BusinessError(SEARCH_DEPRECATED);
  }

  @Get('self/search')
  @UserRoute()
  @SearchRateLimit()
  searchOwn(): never {
    throw new BusinessError(SEARCH_DEPRECATED);
  }

  @Delete()
  @AdminRoute()
  async remove(@Query(body(DeleteLogsSchema)) query: { target_timestamp: number }) {
    return this.logs.deleteBefore(query.target_timestamp);
  }
}
