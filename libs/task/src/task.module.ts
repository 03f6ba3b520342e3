import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelModule } from '@gw/channel';
import { LogModule } from '@gw/log';
import { OptionModule } from '@gw/option';
import { RelayModule } from '@gw/relay';
import { TokenModule } from '@gw/token';
import { UserModule } from '@gw/user';
import { MidjourneyEntity } from './midjourney/midjourney.entity.js';
import { MjImageForwarder } from './midjourney/mj-image.forwarder.js';
import { MjLogController } from './midjourney/mj-log.controller.js';
import { MjPoller } from './midjourney/mj-poller.js';
import { MjRelayController } from './midjourney/mj-relay.controller.js';
import { MjRelayService } from './midjourney/mj-relay.service.js';
import { MjRepository } from './midjourney/mj.repository.js';
import { TaskEntity } from './generic/task.entity.js';
import { TaskBilling } from './shared/task-billing.service.js';
import { TaskGate } from './shared/task-gate.js';
import { TaskPoller } from './shared/task-poller.service.js';

/**
 * Asynchronous tasks: Midjourney-proxy drawings (`midjourneys`) and Suno/video jobs (`tasks`). Submits go
 * through the relay's token auth, prices and ledger; one poller (under the shared job lock) settles them.
 */
@Module({
  imports: [TypeOrmModule.forFeature([MidjourneyEntity, TaskEntity]), OptionModule, ChannelModule, TokenModule, UserModule, LogModule, RelayModule],
  controllers: [MjRelayController, MjLogController],
  providers: [TaskGate, TaskBilling, TaskPoller, MjRepository, MjRelayService, MjImageForwarder, MjPoller],
  exports: [TaskPoller],
})
export class TaskModule {}
