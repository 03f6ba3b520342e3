import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

/** new-api's `midjourneys` (drawing tasks), with its indexes; the poller reads unfinished rows by progress. */
export class CreateMidjourneys1732262408000 implements MigrationInterface {
  name = 'CreateMidjourneys1732262408000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'midjourneys',
      [
        col.id(),
        col.int('code'),
        col.int('user_id'),
        col.varchar('action', 40),
        col.varchar('mj_id', 191),
        col.text('prompt'),
        col.text('prompt_en'),
        col.text('description'),
        col.text('state'),
        col.bigint('submit_time'),
        col.bigint('start_time'),
        col.bigint('finish_time'),
        col.text('image_url'),
        col.text('video_url'),
        col.text('video_urls'),
        col.varchar('status', 20),
        col.varchar('progress', 30),
        col.text('fail_reason'),
        col.int('channel_id'),
        col.bigint('quota'),
        col.int('token_id'),
        col.int('billing_channel_id'),
        col.text('buttons'),
        col.text('properties'),
      ],
      [
        index('midjourneys', ['user_id']),
        index('midjourneys', ['action']),
        index('midjourneys', ['mj_id']),
        index('midjourneys', ['submit_time']),
        index('midjourneys', ['start_time']),
        index('midjourneys', ['finish_time']),
        index('midjourneys', ['status']),
        index('midjourneys', ['progress']),
      ],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('midjourneys', true);
  }
}
