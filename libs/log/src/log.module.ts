import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelModule } from '@gw/channel';
import { OptionModule } from '@gw/option';
import { TokenModule } from '@gw/token';
import { UserModule } from '@gw/user';
import { DayTextsService } from './aggregate/day-texts.service.js';
import { HourlyDashboardService } from './aggregate/hourly-dashboard.service.js';
import { HourlyReader } from './aggregate/hourly-reader.service.js';
import { LogAggregatorService } from './aggregate/log-aggregator.service.js';
import { LogDailyRepository } from './aggregate/log-daily.repository.js';
import { LogHourlyRepository } from './aggregate/log-hourly.repository.js';
import { LogStatService } from './aggregate/log-stat.service.js';
import { HourTextsService } from './aggregate/hour-texts.service.js';
import { HourTextsWarmer } from './aggregate/hour-texts-warmer.service.js';
import { SeriesTextRepository } from './aggregate/series-text.repository.js';
import { LogController } from './log.controller.js';
import { LogQueryService } from './log-query.service.js';
import { LogRepository } from './log.repository.js';
import { LogPurgeRepository } from './retention/log-purge.repository.js';
import { LogPurgeService } from './retention/log-purge.service.js';
import { LogRetentionService } from './retention/log-retention.service.js';
import { LogTokenController } from './log-token.controller.js';
import { LogService } from './log.service.js';
import { QuotaDataController } from './quota-data.controller.js';
import { QuotaDataEntity } from './quota-data.entity.js';
import { QuotaDataRepository } from './quota-data.repository.js';
import { QuotaDataService } from './quota-data.service.js';
import { LogStore } from './store/log-store.js';
import { SqlLogStore } from './store/sql-log-store.js';
import { UserAuditLog } from './user-audit-log.js';

@Module({
  imports: [TypeOrmModule.forFeature([QuotaDataEntity]), OptionModule, ChannelModule, TokenModule, UserModule],
  controllers: [LogController, LogTokenController, QuotaDataController],
  providers: [
    // The one way to the logs; another engine is another class here.
    { provide: LogStore, useClass: SqlLogStore },
    LogService,
    LogRepository,
    LogQueryService,
    LogRetentionService,
    LogPurgeRepository,
    LogPurgeService,
    QuotaDataRepository,
    QuotaDataService,
    LogHourlyRepository,
    LogDailyRepository,
    LogAggregatorService,
    LogStatService,
    HourlyDashboardService,
    HourlyReader,
    SeriesTextRepository,
    HourTextsService,
    DayTextsService,
    HourTextsWarmer,
    UserAuditLog,
  ],
  exports: [LogStore, LogService, LogRetentionService, LogPurgeService, LogAggregatorService, QuotaDataService],
})
export class LogModule {}
