import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable } from '@gw/database';

/**
 * The dashboard's hourly rows of one dimension ('model' or 'username') and one completed hour, kept as the
 * JSON text the answer holds (`body`, NULL when not rendered since the hour's sums last changed), so a week or
 * three months of hours is read back instead of rendered again on every call. `gen` counts the changes of the
 * hour's sums: the aggregator raises it (and clears `body`) in the transaction that adds into the hour, and a
 * reader stores a text only under the `gen` it read before rendering, so a stored text is never older than the
 * sums. `row_count` is the number of rows in `body`.
 */
export class CreateLogSeriesText1732262550000 implements MigrationInterface {
  name = 'CreateLogSeriesText1732262550000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    await createTable(runner, 'log_series_text', [
      col.varchar('dim', 16, { isPrimary: true, isNullable: false }),
      col.bigint('hour', { isPrimary: true }),
      col.bigint('gen'),
      col.int('row_count'),
      // A MySQL TEXT holds 64 KB; an hour of 2,000 users is ~250 KB.
      mysql ? { name: 'body', type: 'longtext', isNullable: true, charset: 'utf8mb4', collation: 'utf8mb4_unicode_ci' } : col.text('body'),
    ]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('log_series_text', true);
  }
}
