import { Inject, Injectable, Logger, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, RedisService, type AppConfig } from '@gw/core';
import { dataSourceOptions, type SchemaParts } from './data-source-options.js';
import { JobLockEntity } from './job-lock.entity.js';
import { JobLockService } from './job-lock.service.js';
import { prepareDriver } from './prepare-driver.js';

/**
 * The data source holding `logs` and their hourly sums: a second database when LOG_SQL_DSN names one
 * (new-api's LOG_DB), otherwise the main data source itself.
 */
export const LOG_DATA_SOURCE = 'LOG_DATA_SOURCE';

/**
 * Job leases taken on the database that holds the logs, for the jobs that work on them (retention): the
 * instances that share the logs are the ones that must not run such a job twice, whichever main database
 * they use. With the logs on the main database, the main JobLockService.
 */
export const LOG_JOB_LOCKS = 'LOG_JOB_LOCKS';

/** Opens the log database; its migrations run at boot beside the main ones (see runMigrations). */
export async function openLogDataSource(config: AppConfig, parts: SchemaParts): Promise<DataSource> {
  const target = config.logDatabase;
  if (!target) throw new Error('openLogDataSource needs LOG_SQL_DSN');
  let dataSource: DataSource;
  try {
    dataSource = await new DataSource(dataSourceOptions(target, parts)).initialize();
  } catch (error) {
    const where = target.type === 'sqlite' ? target.path : `${target.host}:${target.port}/${target.database}`;
    throw new Error(`the log database (LOG_SQL_DSN, ${target.type} ${where}) could not be opened: ${(error as Error).message}`);
  }
  prepareDriver(dataSource);
  return dataSource;
}

/** Closes a separate log database last, after every module has flushed its buffered rows into it. */
@Injectable()
class LogDataSourceCloser implements OnApplicationShutdown {
  private readonly logger = new Logger('LogDatabase');

  constructor(
    @Inject(LOG_DATA_SOURCE) private readonly logs: DataSource,
    private readonly main: DataSource,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.logs === this.main || !this.logs.isInitialized) return;
    await this.logs.destroy().catch((error: Error) => this.logger.warn(`closing the log database: ${error.message}`));
  }
}

/** The providers of the log data source and its job leases; `logParts` undefined keeps the logs on the main database. */
export function logDataSourceProviders(logParts: SchemaParts | undefined): Provider[] {
  return [
    {
      provide: LOG_DATA_SOURCE,
      inject: [APP_CONFIG, DataSource],
      useFactory: (config: AppConfig, main: DataSource) => (config.logDatabase && logParts ? openLogDataSource(config, logParts) : main),
    },
    {
      provide: LOG_JOB_LOCKS,
      inject: [LOG_DATA_SOURCE, DataSource, JobLockService, RedisService, APP_CONFIG],
      useFactory: (logs: DataSource, main: DataSource, mainLocks: JobLockService, redis: RedisService, config: AppConfig) =>
        logs === main || !config.logDatabase
          ? mainLocks
          : new JobLockService(logs.getRepository(JobLockEntity), redis, { ...config, database: config.logDatabase }),
    },
    LogDataSourceCloser,
  ];
}
