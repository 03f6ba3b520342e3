import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addColumn, col } from '@gw/database';

/** new-api's `tokens.cross_group_retry` (a boolean there; 0/1 here, read either way). */
export class AddCrossGroupRetry1732262404100 implements MigrationInterface {
  name = 'AddCrossGroupRetry1732262404100';

  async up(runner: QueryRunner): Promise<void> {
    await addColumn(runner, 'tokens', col.int('cross_group_retry'));
  }

  async down(): Promise<void> {
    // Additive only.
  }
}
