import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OptionModule } from '@gw/option';
import { UserEntity, UserHooks, UserModule } from '@gw/user';
import { AbilityEntity } from './ability.entity.js';
import { ChannelController } from './channel.controller.js';
import { ChannelCopyService } from './channel-copy.service.js';
import { ChannelModelsController } from './channel-models.controller.js';
import { ChannelOpsController } from './channel-ops.controller.js';
import { ChannelOllamaController } from './channel-ollama.controller.js';
import { ChannelOllamaService } from './channel-ollama.service.js';
import { ChannelHealthService } from './channel-health.service.js';
import { ChannelMonitorService } from './channel-monitor.service.js';
import { ChannelBalanceService } from './channel-balance.service.js';
import { ChannelTestService } from './channel-test.service.js';
import { ChannelService } from './channel.service.js';
import { ChannelKeyService } from './channel-key.service.js';
import { ChannelMultiKeyService } from './channel-multi-key.service.js';
import { ChannelRouter } from './channel-router.js';
import { ChannelStatusService } from './channel-status.service.js';
import { ChannelUsageService } from './channel-usage.service.js';
import { ChannelEntity } from './channel.entity.js';
import { ChannelRepository } from './channel.repository.js';
import { ChannelNotifyService } from './channel-notify.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([ChannelEntity, AbilityEntity, UserEntity]), OptionModule, UserModule],
  controllers: [ChannelOpsController, ChannelOllamaController, ChannelController, ChannelModelsController],
  providers: [
    ChannelRepository,
    ChannelRouter,
    ChannelCopyService,
    ChannelStatusService,
    ChannelKeyService,
    ChannelMultiKeyService,
    ChannelNotifyService,
    ChannelHealthService,
    ChannelUsageService,
    ChannelService,
    ChannelTestService,
    ChannelOllamaService,
    ChannelBalanceService,
    ChannelMonitorService,
  ],
  exports: [ChannelRouter, ChannelHealthService, ChannelKeyService, ChannelUsageService, ChannelMonitorService, ChannelTestService],
})
export class ChannelModule {
  // `GET /api/user/models` lives in the user lib, below this one: hand it the routing table's view of models.
  constructor(hooks: UserHooks, router: ChannelRouter) {
    hooks.provideModels((groups) => router.modelsForGroups(groups));
  }
}
