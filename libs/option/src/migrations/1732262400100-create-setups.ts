import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable } from '@gw/database';

export class CreateSetups1732262400100 implements MigrationInterface {
  name = 'CreateSetups1732262400100';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(runner, 'setups', [col.id(), col.varchar('version', 50), col.bigint('initialized_at')]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('setups', true);
  }
}
