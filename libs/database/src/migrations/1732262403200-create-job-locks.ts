import type { MigrationInterface, QueryRunner } from 'typeorm';
import { col, createTable } from '../migration-columns.js';

/** Leases for scheduled jobs, so that only one of the instances sharing a database runs them. */
export class CreateJobLocks1732262403200 implements MigrationInterface {
  name = 'CreateJobLocks1732262403200';

  async up(runner: QueryRunner): Promise<void> {
    await createTable(runner, 'job_locks', [
      col.varchar('name', 64, { isNullable: false, isPrimary: true }),
      col.varchar('holder', 64, { isNullable: false, default: "''" }),
      col.bigint('expires_at'),
    ]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('job_locks', true);
  }
}
