import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { AdminRoute, body, raw, RootRoute } from '@gw/core';
import { FetchModelsSchema, MultiKeyManageSchema, type MultiKeyManageRequest } from '@gw/contracts';
import type { z } from 'zod';
import { channelId } from './channel-input.js';
import { ChannelMonitorService } from './channel-monitor.service.js';
import { ChannelMultiKeyService } from './channel-multi-key.service.js';
import { ChannelBalanceService } from './channel-balance.service.js';
import { ChannelTestService } from './channel-test.service.js';
import { toRelayChannel } from './relay-channel.js';

/**
 * `/api/channel` calls that reach the provider: tests, balances, model lists. Registered before
 * ChannelController so that `/test` and `/update_balance` are not taken for `/:id`.
 */
@Controller('api/channel')
@AdminRoute()
export class ChannelOpsController {
  constructor(
    private readonly tests: ChannelTestService,
    private readonly balances: ChannelBalanceService,
    private readonly monitor: ChannelMonitorService,
    private readonly multiKeys: ChannelMultiKeyService,
  ) {}

  /** Per-key status and actions of a multi-key channel. */
  @Post('multi_key/manage')
  manageKeys(@Body(body(MultiKeyManageSchema)) input: MultiKeyManageRequest) {
    return this.multiKeys.manage(input);
  }

  @Get('test')
  testAll() {
    this.monitor.startInBackground();
    return null;
  }

  @Get('test/:id')
  async test(@Param('id') id: string, @Query('model') model?: string) {
    const row = await this.tests.load(channelId(id));
    const result = await this.tests.test(row, typeof model === 'string' ? model : undefined);
    return raw({ success: result.success, message: result.message, time: result.time });
  }

  @Get('update_balance')
  async updateAllBalances() {
    return { updated: await this.balances.updateAllBalances() };
  }

  @Get('update_balance/:id')
  async updateBalance(@Param('id') id: string) {
    const balance = await this.balances.updateBalance(await this.tests.load(channelId(id)));
    return raw({ success: true, message: '', balance });
  }

  @Get('fetch_models/:id')
  async fetchModels(@Param('id') id: string) {
    const row = await this.tests.load(channelId(id));
    return this.tests.fetchModels(toRelayChannel(row).upstream);
  }

  @Post('fetch_models')
  @RootRoute()
  fetchModelsFor(@Body(body(FetchModelsSchema)) input: z.infer<typeof FetchModelsSchema>) {
    const type = input.type === undefined ? 1 : Number(input.type);
    return this.tests.fetchModels(this.tests.targetFor(type, input.base_url ?? '', input.key));
  }
}
