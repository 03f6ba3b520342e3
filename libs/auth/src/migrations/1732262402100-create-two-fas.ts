import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

const bool = (name: string) => ({ name, type: 'boolean', default: false });

/** new-api's two-factor tables (`two_fas`, `two_fa_backup_codes`), so its data carries over as is. */
export class CreateTwoFas1732262402100 implements MigrationInterface {
  name = 'CreateTwoFas1732262402100';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'two_fas',
      [
        col.id(),
        col.int('user_id', { isNullable: false }),
        col.varchar('secret', 255, { isNullable: false }),
        bool('is_enabled'),
        col.int('failed_attempts'),
        col.datetime('locked_until'),
        col.datetime('last_used_at'),
        col.datetime('created_at'),
        col.datetime('updated_at'),
        col.datetime('deleted_at'),
      ],
      [index('two_fas', ['user_id'], true), index('two_fas', ['deleted_at'])],
    );
    await createTable(
      runner,
      'two_fa_backup_codes',
      [
        col.id(),
        col.int('user_id', { isNullable: false }),
        col.varchar('code_hash', 255, { isNullable: false }),
        bool('is_used'),
        col.datetime('used_at'),
        col.datetime('created_at'),
        col.datetime('deleted_at'),
      ],
      [index('two_fa_backup_codes', ['user_id']), index('two_fa_backup_codes', ['deleted_at'])],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('two_fa_backup_codes', true);
    await runner.dropTable('two_fas', true);
  }
}
