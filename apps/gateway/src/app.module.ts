import { Module, type DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { AuthModule, authSchema } from '@gw/auth';
import { ChannelModule, channelSchema } from '@gw/channel';
import { CoreModule, type AppConfig } from '@gw/core';
import { DatabaseModule, databaseSchema } from '@gw/database';
import { LogModule, logSchema } from '@gw/log';
import { OptionModule, optionSchema } from '@gw/option';
import { OpsModule } from '@gw/ops';
import { RedemptionModule, redemptionSchema } from '@gw/redemption';
import { RelayModule, relaySchema } from '@gw/relay';
import { TaskModule, taskSchema } from '@gw/task';
import { TokenModule, tokenSchema } from '@gw/token';
import { UpstreamModule } from '@gw/upstream';
import { UserModule, userSchema } from '@gw/user';
import { ConsoleModule } from './console/console.module.js';

/** Every module's tables, in one place: the composition root hands them to the data source. */
const schemas: { entities: Function[]; migrations: Function[] }[] = [
  databaseSchema,
  optionSchema,
  userSchema,
  authSchema,
  channelSchema,
  logSchema,
  redemptionSchema,
  tokenSchema,
  taskSchema,
  relaySchema,
];

/** The composition root: wiring only, no rules. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config),
        DatabaseModule.forRoot({
          entities: schemas.flatMap((schema) => schema.entities),
          migrations: schemas.flatMap((schema) => schema.migrations),
        }),
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
