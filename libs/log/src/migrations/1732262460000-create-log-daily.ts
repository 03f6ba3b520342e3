import { type MigrationInterface, type QueryRunner, TableIndex } from 'typeorm';
import { col, createTable, index } from '@gw/database';

/**
 * Daily sums of consume logs for the dashboard's two overviews (dim 'model' and 'username'), one row per
 * (dimension, key, UTC day): a 90-day overview reads 90 rows per model instead of 2,160 hourly ones. The
 * aggregator adds into them in the same transaction as into `log_hourly`, under the same cursor, so they
 * start out as the hourly sums of a database that has them already (summed here, once).
 */
export class CreateLogDaily1732262460000 implements MigrationInterface {
  name = 'CreateLogDaily1732262460000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'log_daily',
      [
        col.id(),
        col.varchar('dim', 16, { isNullable: false, default: "''" }),
        col.int('user_id'),
        col.varchar('name', 255, { isNullable: false, default: "''" }),
        col.bigint('day'),
        col.bigint('count'),
        col.bigint('quota'),
        col.bigint('prompt_tokens'),
        col.bigint('completion_tokens'),
      ],
      [
        index('log_daily', ['dim', 'user_id', 'name', 'day'], true),
        // Covers the overview's read of one dimension over a range of days (as idx_log_hourly_dim_hour does).
        new TableIndex({
          name: 'idx_log_daily_dim_day',
          columnNames: ['dim', 'day', 'name', 'user_id', 'count', 'quota', 'prompt_tokens', 'completion_tokens'],
        }),
      ],
    );
    const q = (name: string) => (runner.connection.options.type === 'mysql' ? `\`${name}\`` : `"${name}"`);
    const summed = ['count', 'quota', 'prompt_tokens', 'completion_tokens'];
    await runner.query(
      `INSERT INTO log_daily (dim, user_id, name, ${q('day')}, ${summed.map(q).join(', ')})
       SELECT dim, user_id, name, hour - hour % 86400, ${summed.map((c) => `SUM(${q(c)})`).join(', ')}
       FROM log_hourly WHERE dim IN ('model', 'username')
       GROUP BY dim, user_id, name, hour - hour % 86400`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('log_daily', true);
  }
}
