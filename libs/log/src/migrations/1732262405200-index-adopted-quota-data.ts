import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { index } from '@gw/database';

const BUCKET = ['user_id', 'username', 'model_name', 'created_at'];

/**
 * A `quota_data` table adopted from new-api lacks our unique bucket key, which keeps two instances from
 * inserting the same hour twice (and every later increment from landing on both rows). The table is small
 * (one row per user, model and hour), so the index is cheap to build. If old rows already repeat a bucket,
 * a plain index is built instead and the duplicates stay for the operator to merge.
 */
export class IndexAdoptedQuotaData1732262405200 implements MigrationInterface {
  name = 'IndexAdoptedQuotaData1732262405200';

  async up(runner: QueryRunner): Promise<void> {
    const table = await runner.getTable('quota_data');
    if (!table) return;
    const covered = table.indices.some(
      (existing) => existing.columnNames.length === BUCKET.length && BUCKET.every((c) => existing.columnNames.includes(c)),
    );
    if (covered) return;
    // Checked first: a unique index over repeated buckets would fail.
    const repeated: unknown[] = await runner.query(
      'SELECT user_id FROM quota_data GROUP BY user_id, username, model_name, created_at HAVING COUNT(*) > 1 LIMIT 1',
    );
    const logger = new Logger('Migrations');
    if (repeated.length) logger.warn('quota_data repeats some hourly buckets: its bucket index is built non-unique');
    // Best effort: a database user that may not index new-api's table (not its owner on PostgreSQL) still
    // starts; a savepoint keeps PostgreSQL's migration transaction usable after the refusal.
    const postgres = runner.connection.options.type === 'postgres' && runner.isTransactionActive;
    if (postgres) await runner.query('SAVEPOINT quota_data_bucket');
    try {
      await runner.createIndex('quota_data', index('quota_data', BUCKET, repeated.length === 0));
    } catch (error) {
      if (postgres) await runner.query('ROLLBACK TO SAVEPOINT quota_data_bucket');
      logger.warn(`could not index quota_data's hourly buckets (${(error as Error).message}); add the index by hand`);
    }
  }

  async down(): Promise<void> {
    // Additive only.
  }
}
