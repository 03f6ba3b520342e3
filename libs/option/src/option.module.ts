import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OptionController } from './option.controller.js';
import { OptionEntity } from './option.entity.js';
import { OptionRepository } from './option.repository.js';
import { OptionService } from './option.service.js';
import { SetupEntity } from './setup.entity.js';
import { SetupRepository } from './setup.repository.js';
import { SetupStateService } from './setup-state.service.js';
import { StatusController } from './status.controller.js';
import { StatusService } from './status.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([OptionEntity, SetupEntity])],
  controllers: [OptionController, StatusController],
  providers: [OptionRepository, OptionService, SetupRepository, SetupStateService, StatusService],
  exports: [OptionService, SetupStateService, StatusService],
})
export class OptionModule {}
