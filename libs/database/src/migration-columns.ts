import { Table, TableColumn, TableIndex, type QueryRunner, type TableColumnOptions } from 'typeorm';

/**
 * Dialect-neutral column builders for migrations, so each migration reads as a list of columns and
 * runs the same on SQLite, MySQL and PostgreSQL.
 */
type Extra = Partial<TableColumnOptions>;

export const col = {
  id: (name = 'id'): TableColumnOptions => ({ name, type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' }),
  int: (name: string, extra: Extra = {}): TableColumnOptions => ({ name, type: 'integer', default: 0, ...extra }),
  bigint: (name: string, extra: Extra = {}): TableColumnOptions => ({ name, type: 'bigint', default: 0, ...extra }),
  float: (name: string, extra: Extra = {}): TableColumnOptions => ({ name, type: 'double precision', default: 0, ...extra }),
  varchar: (name: string, length: number, extra: Extra = {}): TableColumnOptions => ({
    name,
    type: 'varchar',
    length: String(length),
    isNullable: true,
    ...extra,
  }),
  text: (name: string, extra: Extra = {}): TableColumnOptions => ({ name, type: 'text', isNullable: true, ...extra }),
  datetime: (name: string, extra: Extra = {}): TableColumnOptions => ({ name, type: 'datetime', isNullable: true, ...extra }),
};

export const index = (table: string, columns: string[], unique = false): TableIndex =>
  new TableIndex({ name: `idx_${table}_${columns.join('_')}`, columnNames: columns, isUnique: unique });

const TEXT_TYPES = new Set(['varchar', 'text']);

/**
 * PostgreSQL has no DATETIME. On MySQL every text column is utf8mb4 whatever the database's default
 * charset is, so Chinese text and emoji always round-trip (new-api refuses to boot without that).
 */
export function portableColumn(runner: QueryRunner, options: TableColumnOptions): TableColumnOptions {
  const type = runner.connection.options.type;
  if (type === 'postgres' && options.type === 'datetime') return { ...options, type: 'timestamp' };
  if (type === 'mysql' && TEXT_TYPES.has(options.type)) return { ...options, charset: 'utf8mb4', collation: 'utf8mb4_unicode_ci' };
  return options;
}

export async function createTable(runner: QueryRunner, name: string, columns: TableColumnOptions[], indices: TableIndex[] = []) {
  await runner.createTable(new Table({ name, columns: columns.map((c) => portableColumn(runner, c)), indices }), true);
}

export async function addColumn(runner: QueryRunner, table: string, options: TableColumnOptions) {
  if (await runner.hasColumn(table, options.name)) return;
  await runner.addColumn(table, new TableColumn(portableColumn(runner, options)));
}
