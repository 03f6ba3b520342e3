import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

/** new-api's `custom_oauth_providers` and `user_oauth_bindings`. */
export class CreateCustomOAuth1732262402400 implements MigrationInterface {
  name = 'CreateCustomOAuth1732262402400';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'custom_oauth_providers',
      [
        col.id(),
        col.varchar('name', 64, { isNullable: false }),
        col.varchar('slug', 64, { isNullable: false }),
        col.varchar('icon', 128, { isNullable: false, default: "''" }),
        col.varchar('kind', 32, { isNullable: false, default: "'oauth_code'" }),
        { name: 'enabled', type: 'boolean', default: false },
        col.varchar('client_id', 256),
        col.varchar('client_secret', 512),
        col.varchar('authorization_endpoint', 512),
        col.varchar('token_endpoint', 512),
        col.varchar('user_info_endpoint', 512),
        col.varchar('scopes', 256, { isNullable: false, default: "'openid profile email'" }),
        col.varchar('user_id_field', 128, { isNullable: false, default: "'sub'" }),
        col.varchar('username_field', 128, { isNullable: false, default: "'preferred_username'" }),
        col.varchar('display_name_field', 128, { isNullable: false, default: "'name'" }),
        col.varchar('email_field', 128, { isNullable: false, default: "'email'" }),
        col.varchar('well_known', 512),
        col.int('auth_style'),
        col.datetime('created_at'),
        col.datetime('updated_at'),
      ],
      [index('custom_oauth_providers', ['slug'], true)],
    );
    await createTable(
      runner,
      'user_oauth_bindings',
      [
        col.id(),
        col.int('user_id', { isNullable: false }),
        col.int('provider_id', { isNullable: false }),
        col.varchar('provider_user_id', 256, { isNullable: false }),
        col.datetime('created_at'),
      ],
      [
        new TableIndex({ name: 'ux_user_provider', columnNames: ['user_id', 'provider_id'], isUnique: true }),
        new TableIndex({ name: 'ux_provider_userid', columnNames: ['provider_id', 'provider_user_id'], isUnique: true }),
      ],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('user_oauth_bindings', true);
    await runner.dropTable('custom_oauth_providers', true);
  }
}
