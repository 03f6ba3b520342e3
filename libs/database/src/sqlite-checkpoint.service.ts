import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WalCheckpointer, type MainSqliteConnection } from './wal-checkpointer.js';

/**
 * Runs the WAL checkpointer beside the SQLite connection for the life of the app. It stops in
 * onModuleDestroy, before TypeORM closes the data source (onApplicationShutdown), so the main connection
 * is the last one on the file and its close checkpoints and removes the WAL.
 */
@Injectable()
export class SqliteCheckpointService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('SqliteCheckpoint');
  private checkpointer?: WalCheckpointer;

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    if (this.dataSource.options.type !== 'better-sqlite3') return;
    const main = (this.dataSource.driver as unknown as { databaseConnection: MainSqliteConnection }).databaseConnection;
    this.checkpointer = WalCheckpointer.start(main, { warn: (message) => this.logger.warn(message) });
  }

  async onModuleDestroy(): Promise<void> {
    await this.checkpointer?.stop();
  }
}
