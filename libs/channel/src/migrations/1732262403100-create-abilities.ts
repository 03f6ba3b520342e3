import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

export class CreateAbilities1732262403100 implements MigrationInterface {
  name = 'CreateAbilities1732262403100';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'abilities',
      [
        col.varchar('group', 64, { isNullable: false, isPrimary: true }),
        col.varchar('model', 255, { isNullable: false, isPrimary: true }),
        col.int('channel_id', { isNullable: false, isPrimary: true, default: undefined }),
        col.int('enabled', { default: 1 }),
        col.bigint('priority'),
        col.int('weight'),
        col.varchar('tag', 255),
      ],
      [index('abilities', ['channel_id']), index('abilities', ['tag'])],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('abilities', true);
  }
}
