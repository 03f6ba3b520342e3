import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

export class CreateUsers1732262401000 implements MigrationInterface {
  name = 'CreateUsers1732262401000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'users',
      [
        col.id(),
        col.varchar('username', 64, { isNullable: false }),
        col.varchar('password', 255, { isNullable: false }),
        col.varchar('display_name', 64, { isNullable: false, default: "''" }),
        col.int('role', { default: 1 }),
        col.int('status', { default: 1 }),
        col.varchar('email', 128),
        col.varchar('github_id', 64),
        col.varchar('oidc_id', 128),
        col.varchar('wechat_id', 64),
        col.varchar('telegram_id', 64),
        col.varchar('linux_do_id', 64),
        col.varchar('access_token', 64),
        col.bigint('quota'),
        col.bigint('used_quota'),
        col.int('request_count'),
        col.varchar('group', 64, { isNullable: false, default: "'default'" }),
        col.varchar('aff_code', 32),
        col.int('aff_count'),
        col.bigint('aff_quota'),
        col.bigint('aff_history'),
        col.int('inviter_id'),
        col.text('setting'),
        col.varchar('remark', 255),
        col.bigint('created_at'),
        col.bigint('last_login_at'),
        col.datetime('deleted_at'),
      ],
      [
        index('users', ['username'], true),
        index('users', ['access_token'], true),
        index('users', ['aff_code'], true),
        index('users', ['email']),
        index('users', ['display_name']),
        index('users', ['github_id']),
        index('users', ['oidc_id']),
        index('users', ['wechat_id']),
        index('users', ['telegram_id']),
        index('users', ['linux_do_id']),
        index('users', ['inviter_id']),
        index('users', ['deleted_at']),
      ],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('users', true);
  }
}
