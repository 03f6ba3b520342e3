import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addColumn } from '@gw/database';

/**
 * `custom_oauth_providers.pkce_enabled`: the per-provider PKCE switch (a gateway addition; new-api ignores it).
 * On an adopted new-api table the database user may lack ALTER rights: the migration then leaves the column
 * to adoptSchema, which names it in its one startup message with the other columns it could not add.
 */
export class AddCustomOAuthPkce1732262416000 implements MigrationInterface {
  name = 'AddCustomOAuthPkce1732262416000';

  async up(runner: QueryRunner): Promise<void> {
    // PostgreSQL runs each migration in a transaction that one failed statement would poison.
    const postgres = runner.connection.options.type === 'postgres';
    if (postgres) await runner.query('SAVEPOINT add_pkce_enabled');
    try {
      await addColumn(runner, 'custom_oauth_providers', { name: 'pkce_enabled', type: 'boolean', default: false });
    } catch (error) {
      if (postgres) await runner.query('ROLLBACK TO SAVEPOINT add_pkce_enabled');
      new Logger('Migrations').warn(`custom_oauth_providers.pkce_enabled not added here: ${(error as Error).message}`);
    }
  }

  async down(): Promise<void> {
    // Additive only.
  }
}
