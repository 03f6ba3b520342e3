import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable } from '@gw/database';

export class CreateOptions1732262400000 implements MigrationInterface {
  name = 'CreateOptions1732262400000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(runner, 'options', [col.varchar('key', 191, { isPrimary: true, isNullable: false }), col.text('value')]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('options', true);
  }
}
