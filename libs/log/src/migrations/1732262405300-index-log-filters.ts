import type { MigrationInterface, QueryRunner } from 'typeorm';
import { index } from '@gw/database';

/**
 * Each filter of the log list is an equality on one column, ordered newest first inside a created_at range,
 * so each gets a (column, created_at) index that finds and orders the rows without a scan. A `logs` table
 * adopted from new-api kept its own single-column indexes (the create migration leaves an existing table
 * alone), and `group` had none at all. Additive only: an index that already leads with the same columns,
 * whatever its name, is left as it is.
 */
const FILTER_INDEXES = [
  ['created_at'],
  ['type', 'created_at'],
  ['user_id', 'created_at'],
  ['username', 'created_at'],
  ['token_name', 'created_at'],
  ['model_name', 'created_at'],
  ['channel_id', 'created_at'],
  ['token_id', 'created_at'],
  ['group', 'created_at'],
  ['request_id'],
];

export class IndexLogFilters1732262405300 implements MigrationInterface {
  name = 'IndexLogFilters1732262405300';

  async up(runner: QueryRunner): Promise<void> {
    const table = await runner.getTable('logs');
    if (!table) return;
    for (const columns of FILTER_INDEXES) {
      const wanted = index('logs', columns);
      const covered = table.indices.some(
        (existing) => existing.name === wanted.name || columns.every((column, i) => existing.columnNames[i] === column),
      );
      if (!covered) await runner.createIndex('logs', wanted);
    }
  }

  async down(): Promise<void> {
    // Additive only: dropping could remove an index an adopted database relies on.
  }
}
