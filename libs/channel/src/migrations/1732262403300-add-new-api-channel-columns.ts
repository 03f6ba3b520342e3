import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addColumn, col } from '@gw/database';

/**
 * new-api's channel columns the first schema lacked: multi-key state (`channel_info`), the "other
 * settings" (`settings`), and the organisation under new-api's name (`open_ai_organization`). A database
 * created with the earlier `openai_organization` gets its values copied over (the old column stays).
 */
export class AddNewApiChannelColumns1732262403300 implements MigrationInterface {
  name = 'AddNewApiChannelColumns1732262403300';

  async up(runner: QueryRunner): Promise<void> {
    const hadOrganization = await runner.hasColumn('channels', 'open_ai_organization');
    await addColumn(runner, 'channels', col.varchar('open_ai_organization', 255));
    if (!hadOrganization && (await runner.hasColumn('channels', 'openai_organization'))) {
      await runner.query('UPDATE channels SET open_ai_organization = openai_organization');
    }
    await addColumn(runner, 'channels', col.text('channel_info'));
    await addColumn(runner, 'channels', col.text('settings'));
  }

  async down(): Promise<void> {
    // Additive only: the columns may hold data new-api reads.
  }
}
