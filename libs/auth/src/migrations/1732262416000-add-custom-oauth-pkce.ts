import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addColumn } from '@gw/database';

/** `custom_oauth_providers.pkce_enabled`: the per-provider PKCE switch (a gateway addition; new-api ignores it). */
export class AddCustomOAuthPkce1732262416000 implements MigrationInterface {
  name = 'AddCustomOAuthPkce1732262416000';

  async up(runner: QueryRunner): Promise<void> {
    await addColumn(runner, 'custom_oauth_providers', { name: 'pkce_enabled', type: 'boolean', default: false });
  }

  async down(): Promise<void> {
    // Additive only.
  }
}
