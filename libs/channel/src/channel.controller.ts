import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { AdminRoute, body, CriticalRateLimit, CurrentUser, RootRoute, SecureVerificationRequired, type Principal } from '@gw/core';
import {
  BatchTagSchema,
  builtInModelList,
  ChannelIdsSchema,
  ChannelInputSchema,
  CreateChannelSchema,
  EditTagSchema,
  TagSchema,
  type ChannelInput,
  type CreateChannelRequest,
  type EditTagRequest,
} from '@gw/contracts';
import type { z } from 'zod';
import { ChannelStatus } from './channel.entity.js';
import { channelId } from './channel-input.js';
import { ChannelService } from './channel.service.js';
import { ChannelCopyService } from './channel-copy.service.js';

/** new-api's `/api/channel` (admin); the static paths come before `/:id`. */
@Controller('api/channel')
@AdminRoute()
export class ChannelController {
  constructor(
    private readonly channels: ChannelService,
    private readonly copies: ChannelCopyService,
  ) {}

  @Get()
  list(@Query() query: Record<string, unknown>) {
    return this.channels.list(query);
  }

  @Get('search')
  search(@Query() query: Record<string, unknown>) {
    return this.channels.search(query);
  }

  @Get('models')
  models() {
    return builtInModelList();
  }

  @Get('models_enabled')
  modelsEnabled() {
    return this.channels.enabledModels();
  }

  @Post()
  create(@Body(body(CreateChannelSchema)) input: CreateChannelRequest, @CurrentUser() principal: Principal) {
    return this.channels.create(input, principal);
  }

  @Put()
  update(@Body(body(ChannelInputSchema)) input: ChannelInput, @CurrentUser() principal: Principal) {
    return this.channels.update(input, principal);
  }

  @Delete('disabled')
  removeDisabled() {
    return this.channels.removeDisabled();
  }

  @Post('batch')
  removeMany(@Body(body(ChannelIdsSchema)) input: z.infer<typeof ChannelIdsSchema>) {
    return this.channels.removeMany(input.ids);
  }

  @Post('batch/tag')
  batchTag(@Body(body(BatchTagSchema)) input: z.infer<typeof BatchTagSchema>) {
    return this.channels.setTagForIds(input.ids, input.tag);
  }

  @Put('tag')
  editTag(@Body(body(EditTagSchema)) input: EditTagRequest) {
    return this.channels.editTag(input);
  }

  @Post('tag/enabled')
  enableTag(@Body(body(TagSchema)) input: z.infer<typeof TagSchema>) {
    return this.channels.setTagStatus(input.tag, ChannelStatus.Enabled);
  }

  @Post('tag/disabled')
  disableTag(@Body(body(TagSchema)) input: z.infer<typeof TagSchema>) {
    return this.channels.setTagStatus(input.tag, ChannelStatus.ManuallyDisabled);
  }

  @Post('fix')
  fix() {
    return this.channels.fixAbilities();
  }

  /** `?suffix=` (default "_复制") and `?reset_balance=false` as new-api. */
  @Post('copy/:id')
  copy(@Param('id') id: string, @Query('suffix') suffix?: string, @Query('reset_balance') resetBalance?: string) {
    return this.copies.copy(channelId(id), {
      suffix: typeof suffix === 'string' ? suffix : undefined,
      resetBalance: resetBalance !== 'false' && resetBalance !== '0',
    });
  }

  @Post(':id/key')
  @HttpCode(200)
  @RootRoute()
  @CriticalRateLimit()
  @Header('Cache-Control', 'no-store')
  @SecureVerificationRequired()
  revealKey(@Param('id') id: string) {
    return this.channels.revealKey(channelId(id));
  }

  @Get(':id')
  get(@Param('id') id: string) {
    return this.channels.get(channelId(id));
  }

  @Delete(':id')
  async remove(@Param('id') id: string) {
    await this.channels.remove(channelId(id));
    return null;
  }
}
