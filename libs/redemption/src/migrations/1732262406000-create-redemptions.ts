import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

export class CreateRedemptions1732262406000 implements MigrationInterface {
  name = 'CreateRedemptions1732262406000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'redemptions',
      [
        col.id(),
        col.int('user_id'),
        col.varchar('key', 32, { isNullable: false }),
        col.int('status', { default: 1 }),
        col.varchar('name', 255, { isNullable: false, default: "''" }),
        col.bigint('quota', { default: 100 }),
        col.bigint('created_time'),
        col.bigint('redeemed_time'),
        col.int('used_user_id'),
        col.bigint('expired_time'),
        col.datetime('deleted_at'),
      ],
      [
        index('redemptions', ['key'], true),
        index('redemptions', ['name']),
        index('redemptions', ['used_user_id']),
        index('redemptions', ['deleted_at']),
      ],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('redemptions', true);
  }
}
