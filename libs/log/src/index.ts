import { LogEntity } from './log.entity.js';
import { CreateLogs1732262405000 } from './migrations/1732262405000-create-logs.js';
import { CreateQuotaData1732262405100 } from './migrations/1732262405100-create-quota-data.js';
import { IndexAdoptedQuotaData1732262405200 } from './migrations/1732262405200-index-adopted-quota-data.js';
import { IndexLogFilters1732262405300 } from './migrations/1732262405300-index-log-filters.js';
import { CreateLogHourly1732262413000 } from './migrations/1732262413000-create-log-hourly.js';
import { CreateLogDaily1732262460000 } from './migrations/1732262460000-create-log-daily.js';
import { CreateLogSeriesText1732262550000 } from './migrations/1732262550000-create-log-series-text.js';
import { QuotaDataEntity } from './quota-data.entity.js';

export { LogModule } from './log.module.js';
export { LogService } from './log.service.js';
export { LogRetentionService } from './retention/log-retention.service.js';
export { LogAggregatorService } from './aggregate/log-aggregator.service.js';
export { LogPurgeService } from './retention/log-purge.service.js';
export { QuotaDataService } from './quota-data.service.js';
export { LogType, type NewLog } from './log-type.js';
export { LogStore, type LogList, type LogRecord, type LogStat, type UsageDimension } from './store/log-store.js';

/** The tables on the main database: the dashboard export (new-api keeps `quota_data` there with LOG_SQL_DSN set). */
export const logSchema = {
  entities: [QuotaDataEntity],
  migrations: [CreateQuotaData1732262405100, IndexAdoptedQuotaData1732262405200],
};

/** The log store's tables: `logs`, their hourly and daily sums and the dashboard's stored hour texts, on the database LOG_SQL_DSN names (else the main one). */
export const logStoreSchema = {
  entities: [LogEntity],
  migrations: [
    CreateLogs1732262405000,
    IndexLogFilters1732262405300,
    CreateLogHourly1732262413000,
    CreateLogDaily1732262460000,
    CreateLogSeriesText1732262550000,
  ],
};
