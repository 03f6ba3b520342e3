import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { addColumn, col } from '@gw/database';

/** new-api's `users.discord_id` (Discord login binding); skipped when an adopted new-api table has it. */
export class AddUsersDiscordId1732262401100 implements MigrationInterface {
  name = 'AddUsersDiscordId1732262401100';

  async up(runner: QueryRunner): Promise<void> {
    await addColumn(runner, 'users', col.varchar('discord_id', 64));
    const table = await runner.getTable('users');
    if (!table?.indices.some((i) => i.columnNames.length === 1 && i.columnNames[0] === 'discord_id')) {
      await runner.createIndex('users', new TableIndex({ name: 'idx_users_discord_id', columnNames: ['discord_id'] }));
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('users', 'discord_id');
  }
}
