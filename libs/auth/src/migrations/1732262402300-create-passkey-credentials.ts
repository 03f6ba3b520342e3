import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

const bool = (name: string) => ({ name, type: 'boolean', default: false });

/** new-api's `passkey_credentials`. */
export class CreatePasskeyCredentials1732262402300 implements MigrationInterface {
  name = 'CreatePasskeyCredentials1732262402300';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'passkey_credentials',
      [
        col.id(),
        col.int('user_id', { isNullable: false }),
        col.varchar('credential_id', 512, { isNullable: false }),
        col.text('public_key', { isNullable: false }),
        col.varchar('attestation_type', 255),
        col.varchar('aaguid', 512),
        col.bigint('sign_count'),
        bool('clone_warning'),
        bool('user_present'),
        bool('user_verified'),
        bool('backup_eligible'),
        bool('backup_state'),
        col.text('transports'),
        col.varchar('attachment', 32),
        col.datetime('last_used_at'),
        col.datetime('created_at'),
        col.datetime('updated_at'),
        col.datetime('deleted_at'),
      ],
      [
        index('passkey_credentials', ['credential_id'], true),
        index('passkey_credentials', ['user_id']),
        index('passkey_credentials', ['deleted_at']),
      ],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('passkey_credentials', true);
  }
}
