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
import { MjLogService } from './midjourney/mj-log.service.js';
import { MjPoller } from './midjourney/mj-poller.js';
import { MjRelayController } from './midjourney/mj-relay.controller.js';
import { MjRelayService } from './midjourney/mj-relay.service.js';
import { MjRepository } from './midjourney/mj.repository.js';
import { TaskEntity } from './generic/task.entity.js';
import { KlingController } from './generic/kling/kling.controller.js';
import { KlingProvider } from './generic/kling/kling.provider.js';
import { OpenAiVideoController } from './generic/openai-video/openai-video.controller.js';
import { OpenAiVideoProvider } from './generic/openai-video/openai-video.provider.js';
import { SunoController } from './generic/suno/suno.controller.js';
import { SunoProvider } from './generic/suno/suno.provider.js';
import { ViduProvider } from './generic/vidu/vidu.provider.js';
import { JimengController } from './generic/jimeng/jimeng.controller.js';
import { JimengProvider } from './generic/jimeng/jimeng.provider.js';
import { VeoProvider } from './generic/veo/veo.provider.js';
import { HailuoProvider } from './generic/hailuo/hailuo.provider.js';
import { DoubaoVideoProvider } from './generic/doubao-video/doubao-video.provider.js';
import { TaskLogController } from './generic/task-log.controller.js';
import { TaskLogService } from './generic/task-log.service.js';
import { GenericTaskPoller } from './generic/task-poller.family.js';
import { TASK_PROVIDERS } from './generic/task-provider.js';
import { TaskRelayService } from './generic/task-relay.service.js';
import { TaskRepository } from './generic/task.repository.js';
import { TaskBilling } from './shared/task-billing.service.js';
import { TaskGate } from './shared/task-gate.js';
import { TaskPoller } from './shared/task-poller.service.js';
import { TaskUpstream } from './shared/upstream-json.js';

/**
 * Asynchronous tasks: Midjourney-proxy drawings (`midjourneys`) and Suno/video jobs (`tasks`). Submits go
 * through the relay's token auth, prices and ledger; one poller (under the shared job lock) settles them.
 */
/** One provider per `tasks` family: adding a family is a folder and a line here. */
const TASK_FAMILIES = [
  SunoProvider,
  OpenAiVideoProvider,
  KlingProvider,
  ViduProvider,
  DoubaoVideoProvider,
  HailuoProvider,
  VeoProvider,
  JimengProvider,
];

@Module({
  imports: [
    TypeOrmModule.forFeature([MidjourneyEntity, TaskEntity]),
    OptionModule,
    ChannelModule,
    TokenModule,
    UserModule,
    LogModule,
    RelayModule,
  ],
  controllers: [
    MjRelayController,
    MjLogController,
    SunoController,
    OpenAiVideoController,
    KlingController,
    JimengController,
    TaskLogController,
  ],
  providers: [
    TaskGate,
    TaskBilling,
    TaskUpstream,
    TaskPoller,
    MjRepository,
    MjRelayService,
    MjImageForwarder,
    MjPoller,
    MjLogService,
    ...TASK_FAMILIES,
    { provide: TASK_PROVIDERS, useFactory: (...providers: unknown[]) => providers, inject: TASK_FAMILIES },
    TaskRepository,
    TaskRelayService,
    TaskLogService,
    GenericTaskPoller,
  ],
  exports: [TaskPoller],
})
export class TaskModule {}
