import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

export class CreateSessions1732262402000 implements MigrationInterface {
  name = 'CreateSessions1732262402000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'sessions',
      [
        col.varchar('id', 64, { isPrimary: true, isNullable: false }),
        col.int('user_id'),
        col.bigint('created_at'),
        col.bigint('expires_at'),
        col.varchar('ip', 64),
      ],
      [index('sessions', ['user_id']), index('sessions', ['expires_at'])],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('sessions', true);
  }
}
