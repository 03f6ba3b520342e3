import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { adoptSchema, isForeignInstallation } from './schema-adoption.js';

const LOCK_NAME = 'gateway_migrations';

/**
 * Runs pending migrations once at boot, then adopts what existed before them (see adoptSchema). On
 * MySQL and PostgreSQL an advisory lock makes concurrent instances wait for each other instead of
 * racing on the same DDL.
 */
export async function runMigrations(dataSource: DataSource): Promise<number> {
  const logger = new Logger('Migrations');
  const type = dataSource.options.type;
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    if (type === 'mysql') await runner.query('SELECT GET_LOCK(?, 60)', [LOCK_NAME]);
    if (type === 'postgres') await runner.query('SELECT pg_advisory_lock(724301)');
    if (await isForeignInstallation(runner)) {
      logger.log(
        'found an existing new-api/one-api database: adopting it by additive steps only (nothing of it is renamed, dropped or retyped)',
      );
    }
    const applied = await dataSource.runMigrations({ transaction: type === 'postgres' ? 'each' : 'none' });
    if (applied.length) logger.log(`applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`);
    // Tables that existed before our migrations (new-api's) were skipped by them: add what the entities read.
    await adoptSchema(dataSource);
    return applied.length;
  } finally {
    if (type === 'mysql') await runner.query('SELECT RELEASE_LOCK(?)', [LOCK_NAME]).catch(() => undefined);
    if (type === 'postgres') await runner.query('SELECT pg_advisory_unlock(724301)').catch(() => undefined);
    await runner.release();
  }
}
