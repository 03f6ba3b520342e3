import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable, index } from '@gw/database';

/** new-api's `tasks` (Suno and video jobs); its JSON columns are text here, read either way. */
export class CreateTasks1732262408100 implements MigrationInterface {
  name = 'CreateTasks1732262408100';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(
      runner,
      'tasks',
      [
        col.id(),
        col.bigint('created_at'),
        col.bigint('updated_at'),
        col.varchar('task_id', 191),
        col.varchar('platform', 30),
        col.int('user_id'),
        col.varchar('group', 50),
        col.int('channel_id'),
        col.bigint('quota'),
        col.varchar('action', 40),
        col.varchar('status', 20),
        col.text('fail_reason'),
        col.bigint('submit_time'),
        col.bigint('start_time'),
        col.bigint('finish_time'),
        col.varchar('progress', 20),
        col.text('properties'),
        col.text('private_data'),
        col.text('data'),
      ],
      [
        index('tasks', ['created_at']),
        index('tasks', ['task_id']),
        index('tasks', ['platform']),
        index('tasks', ['user_id']),
        index('tasks', ['channel_id']),
        index('tasks', ['action']),
        index('tasks', ['status']),
        index('tasks', ['submit_time']),
        index('tasks', ['start_time']),
        index('tasks', ['finish_time']),
        index('tasks', ['progress']),
      ],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('tasks', true);
  }
}
