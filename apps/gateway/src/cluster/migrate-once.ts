import type { AppConfig } from '@gw/core';
import { dataSourceOptions, openLogDataSource, runMigrations } from '@gw/database';
import { DataSource } from 'typeorm';
import { schemaLayout } from '../schemas.js';

/**
 * The cluster primary's only database work: apply pending migrations (and adopt a new-api schema) on a
 * connection of its own, then close it, so every worker starts on a finished schema and none of them
 * runs DDL. Instances on other machines still meet the migration lock inside runMigrations.
 */
export async function migrateOnce(config: AppConfig): Promise<number> {
  const schema = schemaLayout(config);
  const dataSource = new DataSource(dataSourceOptions(config.database, schema.main));
  await dataSource.initialize();
  let applied: number;
  try {
    applied = await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
  if (!schema.logs) return applied;
  // LOG_SQL_DSN: the log database gets its own tables (created on an empty database, adopted on new-api's).
  const logs = await openLogDataSource(config, schema.logs);
  try {
    return applied + (await runMigrations(logs));
  } finally {
    await logs.destroy();
  }
}
