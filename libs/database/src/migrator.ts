import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';

const LOCK_NAME = 'gateway_migrations';

/**
 * Runs pending migrations once at boot. On MySQL and PostgreSQL an advisory lock makes concurrent
 * instances wait for each other instead of racing on the same DDL.
 */
export async function runMigrations(dataSource: DataSource): Promise<number> {
  const logger = new Logger('Migrations');
  const type = dataSource.options.type;
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    if (type === 'mysql') await runner.query('SELECT GET_LOCK(?, 60)', [LOCK_NAME]);
    if (type === 'postgres') await runner.query('SELECT pg_advisory_lock(724301)');
    const applied = await dataSource.runMigrations({ transaction: type === 'postgres' ? 'each' : 'none' });
    if (applied.length) logger.log(`applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`);
    return applied.length;
  } finally {
    if (type === 'mysql') await runner.query('SELECT RELEASE_LOCK(?)', [LOCK_NAME]).catch(() => undefined);
    if (type === 'postgres') await runner.query('SELECT pg_advisory_unlock(724301)').catch(() => undefined);
    await runner.release();
  }
}
