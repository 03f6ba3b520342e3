import { Global, Injectable, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@gw/core';
import { dataSourceOptions, type SchemaParts } from './data-source-options.js';
import { JobLockEntity } from './job-lock.entity.js';
import { JobLockService } from './job-lock.service.js';
import { SqliteCheckpointService } from './sqlite-checkpoint.service.js';
import { serializeSqliteTransactions } from './sqlite-transactions.js';

/** Applies the SQLite transaction queue before any module writes. */
@Injectable()
class SqliteTransactionQueue implements OnModuleInit {
  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    serializeSqliteTransactions(this.dataSource);
  }
}

/**
 * Opens the configured database. The composition root hands in every module's entities and
 * migrations, so this lib depends on no feature lib.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(parts: SchemaParts): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config.database, parts), retryAttempts: 2, retryDelay: 1000 }),
        }),
        TypeOrmModule.forFeature([JobLockEntity]),
      ],
      providers: [SqliteTransactionQueue, SqliteCheckpointService, JobLockService],
      // Every module's scheduled jobs take the same leader lock (one instance at a time, with or without Redis).
      exports: [JobLockService],
    };
  }
}
