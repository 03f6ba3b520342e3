import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OptionModule } from '@gw/option';
import { AbilityEntity } from './ability.entity.js';
import { ChannelController } from './channel.controller.js';
import { ChannelModelsController } from './channel-models.controller.js';
import { ChannelOpsController } from './channel-ops.controller.js';
import { ChannelHealthService } from './channel-health.service.js';
import { ChannelMonitorService } from './channel-monitor.service.js';
import { ChannelTestService } from './channel-test.service.js';
import { ChannelService } from './channel.service.js';
import { ChannelRouter } from './channel-router.js';
import { ChannelStatusService } from './channel-status.service.js';
import { ChannelUsageService } from './channel-usage.service.js';
import { ChannelEntity } from './channel.entity.js';
import { ChannelRepository } from './channel.repository.js';

@Module({
  imports: [TypeOrmModule.forFeature([ChannelEntity, AbilityEntity]), OptionModule],
  controllers: [ChannelOpsController, ChannelController, ChannelModelsController],
  providers: [
    ChannelRepository,
    ChannelRouter,
    ChannelStatusService,
    ChannelHealthService,
    ChannelUsageService,
    ChannelService,
    ChannelTestService,
    ChannelMonitorService,
  ],
  exports: [ChannelRouter, ChannelHealthService, ChannelUsageService, ChannelMonitorService],
})
export class ChannelModule {}
