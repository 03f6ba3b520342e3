import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addColumn, col, index } from '@gw/database';

/** new-api's user columns the first schema lacked: the Discord binding and the Stripe customer id. */
export class AddNewApiUserColumns1732262401100 implements MigrationInterface {
  name = 'AddNewApiUserColumns1732262401100';

  async up(runner: QueryRunner): Promise<void> {
    for (const name of ['discord_id', 'stripe_customer']) {
      if (await runner.hasColumn('users', name)) continue;
      await addColumn(runner, 'users', col.varchar(name, 64));
      await runner.createIndex('users', index('users', [name]));
    }
  }

  async down(): Promise<void> {
    // Additive only.
  }
}
