import { Global, Injectable, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { dataSourceOptions, type SchemaParts } from './data-source-options.js';
import { JobLockEntity } from './job-lock.entity.js';
import { JobLockService } from './job-lock.service.js';
import { LOG_DATA_SOURCE, LOG_JOB_LOCKS, logDataSourceProviders } from './log-data-source.js';
import { SqliteCheckpointService } from './sqlite-checkpoint.service.js';
import { prepareDriver } from './prepare-driver.js';

/** Applies the SQLite transaction queue and the PostgreSQL client error listener before any module queries. */
@Injectable()
class DriverSetUp implements OnModuleInit {
  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    prepareDriver(this.dataSource);
  }
}

/**
 * Opens the configured database, and the log database when LOG_SQL_DSN names one. The composition root
 * hands in every module's entities and migrations (`logs`: the tables that live on the log database, with
 * the job leases), so this lib depends on no feature lib.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(parts: SchemaParts, logs?: SchemaParts): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config.database, parts), retryAttempts: 2, retryDelay: 1000 }),
        }),
        TypeOrmModule.forFeature([JobLockEntity]),
      ],
      providers: [DriverSetUp, JobLockService, ...logDataSourceProviders(logs), SqliteCheckpointService],
      // Every module's scheduled jobs take the same leader lock (one instance at a time, with or without Redis).
      exports: [JobLockService, LOG_DATA_SOURCE, LOG_JOB_LOCKS, SqliteCheckpointService],
    };
  }
}
