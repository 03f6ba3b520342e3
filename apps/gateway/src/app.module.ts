import { Module, type DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { AuthModule } from '@gw/auth';
import { ChannelModule } from '@gw/channel';
import { CoreModule, type AppConfig } from '@gw/core';
import { DatabaseModule } from '@gw/database';
import { LogModule } from '@gw/log';
import { OptionModule } from '@gw/option';
import { OpsModule } from '@gw/ops';
import { RedemptionModule } from '@gw/redemption';
import { RelayModule } from '@gw/relay';
import { TaskModule } from '@gw/task';
import { TokenModule } from '@gw/token';
import { UpstreamModule } from '@gw/upstream';
import { UserModule } from '@gw/user';
import { ConsoleModule } from './console/console.module.js';
import { schemaLayout } from './schemas.js';

/** The composition root: wiring only, no rules. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    const schema = schemaLayout(config);
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config),
        DatabaseModule.forRoot(schema.main, schema.logs),
        ScheduleModule.forRoot(),
        ConsoleModule,
        OptionModule,
        UserModule,
        AuthModule,
        UpstreamModule,
        ChannelModule,
        TokenModule,
        RedemptionModule,
        LogModule,
        RelayModule,
        OpsModule,
        TaskModule,
      ],
    };
  }
}
