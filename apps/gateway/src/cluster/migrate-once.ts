import type { AppConfig } from '@gw/core';
import { dataSourceOptions, runMigrations } from '@gw/database';
import { DataSource } from 'typeorm';
import { schemaParts } from '../schemas.js';

/**
 * The cluster primary's only database work: apply pending migrations (and adopt a new-api schema) on a
 * connection of its own, then close it, so every worker starts on a finished schema and none of them
 * runs DDL. Instances on other machines still meet the migration lock inside runMigrations.
 */
export async function migrateOnce(config: AppConfig): Promise<number> {
  const dataSource = new DataSource(dataSourceOptions(config.database, schemaParts));
  await dataSource.initialize();
  try {
    return await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
}
