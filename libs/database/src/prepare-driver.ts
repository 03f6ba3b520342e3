import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { reportPostgresClientErrors } from './raw-handles.js';
import { serializeSqliteTransactions } from './sqlite-transactions.js';
import { gateSqliteWrites } from './sqlite-write-gate.js';

const logger = new Logger('Database');

/**
 * What every opened data source needs before its first query: SQLite's transaction queue and write gate,
 * PostgreSQL's client error listener.
 */
export function prepareDriver(dataSource: DataSource): void {
  serializeSqliteTransactions(dataSource);
  gateSqliteWrites(dataSource);
  reportPostgresClientErrors(dataSource, (error) => logger.warn(`a PostgreSQL connection in use was lost: ${error.message}`));
}
