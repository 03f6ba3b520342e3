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
    // Checked first rather than caught: on PostgreSQL a failed CREATE would abort the migration's transaction.
    const repeated: unknown[] = await runner.query(
      'SELECT user_id FROM quota_data GROUP BY user_id, username, model_name, created_at HAVING COUNT(*) > 1 LIMIT 1',
    );
    if (repeated.length) new Logger('Migrations').warn('quota_data repeats some hourly buckets: its bucket index is built non-unique');
    await runner.createIndex('quota_data', index('quota_data', BUCKET, repeated.length === 0));
  }

  async down(): Promise<void> {
    // Additive only.
  }
}
