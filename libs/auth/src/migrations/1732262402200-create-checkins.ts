import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col, createTable } from '@gw/database';

/** new-api's `checkins` with its unique (user_id, checkin_date) index. */
export class CreateCheckins1732262402200 implements MigrationInterface {
  name = 'CreateCheckins1732262402200';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'checkins',
      [
        col.id(),
        col.int('user_id', { isNullable: false }),
        col.varchar('checkin_date', 10, { isNullable: false }),
        col.int('quota_awarded', { isNullable: false }),
        col.bigint('created_at'),
      ],
      [new TableIndex({ name: 'idx_user_checkin_date', columnNames: ['user_id', 'checkin_date'], isUnique: true })],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('checkins', true);
  }
}
