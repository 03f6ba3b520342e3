import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

export class CreateTopUps1732262406010 implements MigrationInterface {
  name = 'CreateTopUps1732262406010';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'top_ups',
      [
        col.id(),
        col.int('user_id'),
        col.bigint('amount'),
        col.float('money'),
        col.varchar('trade_no', 255, { isNullable: false }),
        col.varchar('payment_method', 50, { isNullable: false, default: "''" }),
        col.varchar('payment_provider', 50, { isNullable: false, default: "''" }),
        col.bigint('create_time'),
        col.bigint('complete_time'),
        col.varchar('status', 32, { isNullable: false, default: "'pending'" }),
      ],
      [index('top_ups', ['trade_no'], true), index('top_ups', ['user_id'])],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('top_ups', true);
  }
}
