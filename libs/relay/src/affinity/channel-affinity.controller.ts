import { Controller, Delete, Get, Query } from '@nestjs/common';
import type { AffinityCacheStats, AffinityUsageStats } from '@gw/contracts';
import { AdminRoute, RootRoute } from '@gw/core';
import { ChannelAffinity } from './channel-affinity.service.js';

/** new-api's channel affinity routes: the pin cache (root, with the options) and one key's usage (admin, from a log row). */
@Controller('api')
export class ChannelAffinityController {
  constructor(private readonly affinity: ChannelAffinity) {}

  @Get('option/channel_affinity_cache')
  @RootRoute()
  cache(): Promise<AffinityCacheStats> {
    return this.affinity.cacheStats();
  }

  /** `?all=true` clears every pin; `?rule_name=` one rule's. */
  @Delete('option/channel_affinity_cache')
  @RootRoute()
  async clear(@Query('all') all?: string, @Query('rule_name') ruleName?: string): Promise<{ deleted: number }> {
    return { deleted: await this.affinity.clear(String(all ?? '').trim() === 'true', String(ruleName ?? '')) };
  }

  @Get('log/channel_affinity_usage_cache')
  @AdminRoute()
  usage(
    @Query('rule_name') ruleName?: string,
    @Query('using_group') usingGroup?: string,
    @Query('key_fp') keyFp?: string,
  ): Promise<AffinityUsageStats> {
    return this.affinity.usageStats(String(ruleName ?? ''), String(usingGroup ?? ''), String(keyFp ?? ''));
  }
}
