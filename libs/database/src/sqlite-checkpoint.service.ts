import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LOG_DATA_SOURCE } from './log-data-source.js';
import { WalCheckpointer, type MainSqliteConnection } from './wal-checkpointer.js';

/**
 * Runs the WAL checkpointer beside each SQLite connection (the main one, and a separate log database's) for
 * the life of the app. It stops in
 * onModuleDestroy, before TypeORM closes the data source (onApplicationShutdown), so the main connection
 * is the last one on the file and its close checkpoints and removes the WAL.
 */
@Injectable()
export class SqliteCheckpointService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('SqliteCheckpoint');
  private readonly checkpointers = new Map<DataSource, WalCheckpointer>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOG_DATA_SOURCE) private readonly logDataSource: DataSource,
  ) {}

  onModuleInit(): void {
    const sources = this.logDataSource === this.dataSource ? [this.dataSource] : [this.dataSource, this.logDataSource];
    for (const source of sources) {
      if (source.options.type !== 'better-sqlite3') continue;
      const main = (source.driver as unknown as { databaseConnection: MainSqliteConnection }).databaseConnection;
      const checkpointer = WalCheckpointer.start(main, { warn: (message) => this.logger.warn(message) });
      if (checkpointer) this.checkpointers.set(source, checkpointer);
    }
  }

  /**
   * Cuts `source`'s WAL file to zero bytes (see WalCheckpointer.truncate), after a large delete: true when
   * cut, false when the database was busy, undefined when `source` has no WAL checkpointer (not a SQLite
   * file, or in memory), so there is nothing to retry.
   */
  truncateWal(source: DataSource): Promise<boolean> | undefined {
    const checkpointer = this.checkpointers.get(source);
    return checkpointer?.running ? checkpointer.truncate() : undefined;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.checkpointers.values()].map((checkpointer) => checkpointer.stop()));
  }
}
