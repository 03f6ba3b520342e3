import { Controller, Get, Query } from '@nestjs/common';
import { AdminRoute, CurrentUser, UserRoute, body, type Principal } from '@gw/core';
import { QuotaDataQuerySchema, type QuotaDataQuery } from '@gw/contracts';
import { QuotaDataService } from './quota-data.service.js';

/** new-api's `/api/data`: dashboard aggregates by model and hour. */
@Controller('api/data')
export class QuotaDataController {
  constructor(private readonly data: QuotaDataService) {}

  @Get()
  @AdminRoute()
  list(@Query(body(QuotaDataQuerySchema)) query: QuotaDataQuery) {
    return this.data.listAll(query);
  }

  @Get('users')
  @AdminRoute()
  listByUser(@Query(body(QuotaDataQuerySchema)) query: QuotaDataQuery) {
    return this.data.listByUser(query);
  }

  @Get('self')
  @UserRoute()
  listOwn(@CurrentUser() principal: Principal, @Query(body(QuotaDataQuerySchema)) query: QuotaDataQuery) {
    return this.data.listOwn(principal, query);
  }
}
