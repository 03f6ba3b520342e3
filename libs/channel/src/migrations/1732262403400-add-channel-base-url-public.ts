import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addColumn, col } from '@gw/database';

/**
 * `channels.base_url_public` (a gateway addition; new-api has no such column and ignores it): whether the relay
 * must refuse a private address when it connects to the channel's base URL (threats S5, DNS rebinding).
 * Nullable without a default, so existing rows and rows new-api inserts read as "not recorded" and keep the old
 * behaviour. On an adopted new-api table the database user may lack ALTER rights: the migration then leaves the
 * column to adoptSchema, which names it in its one startup message with the other columns it could not add.
 */
export class AddChannelBaseUrlPublic1732262403400 implements MigrationInterface {
  name = 'AddChannelBaseUrlPublic1732262403400';

  async up(runner: QueryRunner): Promise<void> {
    // PostgreSQL runs each migration in a transaction that one failed statement would poison.
    const postgres = runner.connection.options.type === 'postgres';
    if (postgres) await runner.query('SAVEPOINT add_base_url_public');
    try {
      await addColumn(runner, 'channels', col.int('base_url_public', { isNullable: true, default: undefined }));
    } catch (error) {
      if (postgres) await runner.query('ROLLBACK TO SAVEPOINT add_base_url_public');
      new Logger('Migrations').warn(`channels.base_url_public not added here: ${(error as Error).message}`);
    }
  }

  async down(): Promise<void> {
    // Additive only.
  }
}
