import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { AdminRoute, body, BusinessError, CurrentUser, type Principal } from '@gw/core';
import { CreateRedemptionSchema, RedemptionStatusSchema, UpdateRedemptionSchema, type CreateRedemptionRequest } from '@gw/contracts';
import { RedemptionService } from './redemption.service.js';

function redemptionId(raw: string): number {
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw new BusinessError('invalid redemption code id');
  return Number(raw);
}

/** new-api's `/api/redemption` (admin); `search` comes before `/:id`. */
@Controller('api/redemption')
@AdminRoute()
export class RedemptionController {
  constructor(private readonly redemptions: RedemptionService) {}

  @Get()
  list(@Query() query: Record<string, unknown>) {
    return this.redemptions.list(query);
  }

  /** No search rate limit here: new-api has none on this admin route. */
  @Get('search')
  search(@Query() query: Record<string, unknown>) {
    return this.redemptions.search(query);
  }

  @Get(':id')
  get(@Param('id') id: string) {
    return this.redemptions.get(redemptionId(id));
  }

  @Post()
  @HttpCode(200)
  create(@Body(body(CreateRedemptionSchema)) input: CreateRedemptionRequest, @CurrentUser() principal: Principal) {
    return this.redemptions.create(input, principal);
  }

  /** `?status_only=true` changes only the status (new-api's enable/disable buttons). */
  @Put()
  update(@Query('status_only') statusOnly: string | undefined, @Body() raw: unknown) {
    if (statusOnly) return this.redemptions.setStatus(body(RedemptionStatusSchema).transform(raw));
    return this.redemptions.update(body(UpdateRedemptionSchema).transform(raw));
  }

  @Delete('invalid')
  removeInvalid() {
    return this.redemptions.removeInvalid();
  }

  @Delete(':id')
  async remove(@Param('id') id: string) {
    await this.redemptions.remove(redemptionId(id));
    return null;
  }
}
