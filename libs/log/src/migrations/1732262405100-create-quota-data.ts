import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

/**
 * new-api's `quota_data` (dashboard aggregates). The unique bucket key lets several instances add
 * into the same hour without creating duplicate rows.
 */
export class CreateQuotaData1732262405100 implements MigrationInterface {
  name = 'CreateQuotaData1732262405100';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'quota_data',
      [
        col.id(),
        col.int('user_id'),
        col.varchar('username', 64, { isNullable: false, default: "''" }),
        col.varchar('model_name', 255, { isNullable: false, default: "''" }),
        col.bigint('created_at'),
        col.bigint('token_used'),
        col.int('count'),
        col.bigint('quota'),
      ],
      [
        index('quota_data', ['user_id', 'created_at']),
        index('quota_data', ['created_at']),
        index('quota_data', ['username', 'created_at']),
        index('quota_data', ['user_id', 'username', 'model_name', 'created_at'], true),
      ],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('quota_data', true);
  }
}
