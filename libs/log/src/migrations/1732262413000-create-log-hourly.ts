import { type MigrationInterface, type QueryRunner, TableIndex } from 'typeorm';
import { col, createTable, index } from '@gw/database';

/**
 * Hourly sums of consume logs, one row per (dimension, key, hour): `dim` names what the row is keyed by
 * ('all', 'user', 'username', 'token', 'model', 'channel', 'group'), `user_id` or `name` holds the key. The
 * unique key is the bucket, so two instances adding into the same hour update one row. The cursor table
 * records the highest log id the sums cover, so aggregation resumes where it stopped.
 */
export class CreateLogHourly1732262413000 implements MigrationInterface {
  name = 'CreateLogHourly1732262413000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'log_hourly',
      [
        col.id(),
        col.varchar('dim', 16, { isNullable: false, default: "''" }),
        col.int('user_id'),
        col.varchar('name', 255, { isNullable: false, default: "''" }),
        col.bigint('hour'),
        col.bigint('count'),
        col.bigint('quota'),
        col.bigint('prompt_tokens'),
        col.bigint('completion_tokens'),
      ],
      [
        index('log_hourly', ['dim', 'user_id', 'name', 'hour'], true),
        // Covers the dashboard's read of a whole dimension over a range of hours: without it each bucket is a
        // lookup into a table ordered by insertion, where one hour's buckets of every dimension sit together.
        new TableIndex({
          name: 'idx_log_hourly_dim_hour',
          columnNames: ['dim', 'hour', 'name', 'user_id', 'count', 'quota', 'prompt_tokens', 'completion_tokens'],
        }),
      ],
    );
    await createTable(runner, 'log_aggregate_cursors', [
      col.varchar('name', 64, { isPrimary: true, isNullable: false }),
      col.bigint('last_id'),
    ]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('log_aggregate_cursors', true);
    await runner.dropTable('log_hourly', true);
  }
}
