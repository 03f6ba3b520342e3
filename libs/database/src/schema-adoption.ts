import { Logger } from '@nestjs/common';
import { TableColumn, type DataSource, type QueryRunner, type Table, type TableColumnOptions } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { portableColumn } from './migration-columns.js';

/** Tables every new-api and one-api installation has; finding them without our migrations table means adoption. */
const LEGACY_MARKERS = ['users', 'tokens', 'channels', 'options'];

/** Raised at boot when the database lacks a column the gateway reads, naming every one of them. */
export class SchemaMismatchError extends Error {
  constructor(readonly missing: string[]) {
    super(
      `The database is missing ${missing.length === 1 ? 'a column' : 'columns'} the gateway needs: ${missing.join(', ')}. ` +
        'They could not be added automatically; add them (or restore the database) and start again.',
    );
    this.name = 'SchemaMismatchError';
  }
}

/**
 * True when the database already holds new-api's (or one-api's) tables but none of our migrations ran:
 * the operator pointed the gateway at an existing installation.
 */
export async function isForeignInstallation(runner: QueryRunner, migrationsTable = 'migrations'): Promise<boolean> {
  if (await runner.hasTable(migrationsTable)) return false;
  for (const table of LEGACY_MARKERS) if (!(await runner.hasTable(table))) return false;
  return true;
}

/** A column of ours as a migration would declare it, loosened where rows already exist. */
function columnFor(dataSource: DataSource, column: ColumnMetadata): TableColumnOptions {
  const type = dataSource.driver.normalizeType(column);
  const hasDefault = column.default !== undefined && column.default !== null;
  const options: TableColumnOptions = {
    name: column.databaseName,
    type,
    length: column.length || undefined,
    // Existing rows need a value: a column without a default is added as nullable rather than failing.
    isNullable: column.isNullable || !hasDefault,
  };
  if (hasDefault) options.default = typeof column.default === 'string' ? `'${column.default.replace(/'/g, "''")}'` : column.default;
  return options;
}

/**
 * Brings an existing schema (new-api's, one-api's, or an older one of ours) up to what the entities read,
 * by additive steps only: a column an entity maps that the table lacks is added, with the entity's type
 * and default. Nothing is renamed, dropped or retyped, so the previous application can still use the
 * database. What cannot be added is reported by name in one clear error instead of a query failing later.
 */
export async function adoptSchema(dataSource: DataSource, logger = new Logger('Schema')): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const added: string[] = [];
  const missing: string[] = [];
  try {
    for (const metadata of dataSource.entityMetadatas) {
      const table: Table | undefined = await runner.getTable(metadata.tablePath);
      if (!table) {
        missing.push(`table ${metadata.tableName}`);
        continue;
      }
      for (const column of metadata.columns) {
        if (column.isVirtual || table.findColumnByName(column.databaseName)) continue;
        const name = `${metadata.tableName}.${column.databaseName}`;
        try {
          await runner.addColumn(table, new TableColumn(portableColumn(runner, columnFor(dataSource, column))));
          added.push(name);
        } catch (error) {
          logger.error(`could not add column ${name}: ${(error as Error).message}`);
          missing.push(name);
        }
      }
    }
  } finally {
    await runner.release();
  }
  if (added.length) logger.log(`added ${added.length} column(s) the gateway needs: ${added.join(', ')}`);
  if (missing.length) throw new SchemaMismatchError(missing);
  return added;
}
