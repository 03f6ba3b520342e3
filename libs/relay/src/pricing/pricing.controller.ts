import { Controller, Get } from '@nestjs/common';
import { CurrentUser, OptionalAuth, raw, type Principal } from '@gw/core';
import { PricingCatalog } from './pricing-catalog.js';

@Controller('api/pricing')
export class PricingController {
  constructor(private readonly catalog: PricingCatalog) {}

  /** Public (guests see the default groups); a logged-in caller sees the groups usable by their group. */
  @Get()
  @OptionalAuth()
  list(@CurrentUser() caller: Principal | undefined) {
    return raw({ success: true, message: '', ...this.catalog.forGroup(caller?.group ?? '') });
  }
}
