import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

export class CreateChannels1732262403000 implements MigrationInterface {
  name = 'CreateChannels1732262403000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'channels',
      [
        col.id(),
        col.int('type'),
        col.text('key', { isNullable: false }),
        col.varchar('open_ai_organization', 255),
        col.varchar('test_model', 255),
        col.int('status', { default: 1 }),
        col.varchar('name', 255, { isNullable: false, default: "''" }),
        col.int('weight'),
        col.bigint('created_time'),
        col.bigint('test_time'),
        col.int('response_time'),
        col.varchar('base_url', 512, { default: "''" }),
        col.text('other'),
        col.float('balance'),
        col.bigint('balance_updated_time'),
        col.text('models'),
        col.varchar('group', 255, { isNullable: false, default: "'default'" }),
        col.bigint('used_quota'),
        col.text('model_mapping'),
        col.varchar('status_code_mapping', 1024, { default: "''" }),
        col.bigint('priority'),
        col.int('auto_ban', { default: 1 }),
        col.text('other_info'),
        col.varchar('tag', 255),
        col.text('setting'),
        col.text('param_override'),
        col.text('header_override'),
        col.int('max_input_tokens'),
        col.varchar('remark', 255),
      ],
      [index('channels', ['name']), index('channels', ['tag']), index('channels', ['status'])],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('channels', true);
  }
}
