import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

/**
 * new-api's `logs`. Indexes serve the list/stat filters at millions of rows: every list is ordered
 * newest first inside a created_at range, so each filter column's index ends in created_at (InnoDB
 * appends id, the tie-break). Stats use (type, created_at) or (user_id, created_at).
 */
export class CreateLogs1732262405000 implements MigrationInterface {
  name = 'CreateLogs1732262405000';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'logs',
      [
        col.id(),
        col.int('user_id'),
        col.bigint('created_at'),
        col.int('type'),
        col.text('content'),
        col.varchar('username', 255, { isNullable: false, default: "''" }),
        col.varchar('token_name', 255, { isNullable: false, default: "''" }),
        col.varchar('model_name', 255, { isNullable: false, default: "''" }),
        col.bigint('quota'),
        col.int('prompt_tokens'),
        col.int('completion_tokens'),
        col.int('use_time'),
        col.int('is_stream'),
        col.int('channel_id'),
        col.int('token_id'),
        col.varchar('group', 64, { isNullable: false, default: "''" }),
        col.varchar('ip', 64, { isNullable: false, default: "''" }),
        col.varchar('request_id', 64, { isNullable: false, default: "''" }),
        col.text('other'),
      ],
      [
        index('logs', ['created_at']),
        index('logs', ['user_id', 'created_at']),
        index('logs', ['type', 'created_at']),
        index('logs', ['username', 'created_at']),
        index('logs', ['model_name', 'created_at']),
        index('logs', ['token_name', 'created_at']),
        index('logs', ['channel_id', 'created_at']),
        index('logs', ['token_id', 'created_at']),
        index('logs', ['request_id']),
      ],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('logs', true);
  }
}
