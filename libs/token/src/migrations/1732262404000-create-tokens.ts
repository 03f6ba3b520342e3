import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

export class CreateTokens1732262404000 implements MigrationInterface {
  name = 'CreateTokens1732262404000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'tokens',
      [
        col.id(),
        col.int('user_id'),
        col.varchar('key', 128, { isNullable: false }),
        col.int('status', { default: 1 }),
        col.varchar('name', 255, { isNullable: false, default: "''" }),
        col.bigint('created_time'),
        col.bigint('accessed_time'),
        col.bigint('expired_time', { default: -1 }),
        col.bigint('remain_quota'),
        col.int('unlimited_quota'),
        col.int('model_limits_enabled'),
        col.varchar('model_limits', 1024, { isNullable: false, default: "''" }),
        col.text('allow_ips'),
        col.bigint('used_quota'),
        col.varchar('group', 64, { isNullable: false, default: "''" }),
        col.datetime('deleted_at'),
      ],
      [index('tokens', ['user_id']), index('tokens', ['key'], true), index('tokens', ['name']), index('tokens', ['deleted_at'])],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('tokens', true);
  }
}
