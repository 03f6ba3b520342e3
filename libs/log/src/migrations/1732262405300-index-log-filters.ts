import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
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
    const existing = await indexColumns(runner, table.indices);
    // An adopted new-api table may lack a column of ours (request_id) until schema adoption adds it after the
    // migrations; its index is then left out, as the create migration leaves such a table's indexes alone.
    const present = new Set(table.columns.map((column) => column.name));
    for (const columns of FILTER_INDEXES) {
      if (!columns.every((column) => present.has(column))) continue;
      const wanted = index('logs', columns);
      const covered = existing.some((found) => found.name === wanted.name || columns.every((column, i) => found.columns[i] === column));
      if (!covered) await createBestEffort(runner, wanted);
    }
  }

  async down(): Promise<void> {
    // Additive only: dropping could remove an index an adopted database relies on.
  }
}

/**
 * An adopted table may belong to another database user (no index rights): the gateway still starts, and the
 * schema check names what is really missing. On PostgreSQL a savepoint keeps the migration's transaction usable.
 */
async function createBestEffort(runner: QueryRunner, wanted: TableIndex): Promise<void> {
  const postgres = runner.connection.options.type === 'postgres' && runner.isTransactionActive;
  const savepoint = `log_index_${wanted.columnNames.join('_')}`;
  if (postgres) await runner.query(`SAVEPOINT ${savepoint}`);
  try {
    await runner.createIndex('logs', wanted);
  } catch (error) {
    if (postgres) await runner.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
    new Logger('Migrations').warn(`could not add index ${wanted.name} on logs (${(error as Error).message}); add it by hand`);
  }
}

/**
 * The columns of each index of `logs`, in index order. TypeORM reads them in order on SQLite and MySQL but not on
 * PostgreSQL, where the order is taken from the index definition itself.
 */
async function indexColumns(runner: QueryRunner, indices: TableIndex[]): Promise<Array<{ name?: string; columns: string[] }>> {
  if (runner.connection.options.type !== 'postgres') return indices.map((found) => ({ name: found.name, columns: found.columnNames }));
  const rows: Array<{ indexname: string; indexdef: string }> = await runner.query(
    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'logs'",
  );
  return rows.map((row) => {
    const list = /\(([^)]*)\)\s*(WHERE.*)?$/i.exec(row.indexdef)?.[1] ?? '';
    return { name: row.indexname, columns: list.split(',').map((column) => column.trim().replace(/^"|"$/g, '')) };
  });
}
