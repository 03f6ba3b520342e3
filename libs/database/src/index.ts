export { DatabaseModule } from './database.module.js';
export { dataSourceOptions, type SchemaParts } from './data-source-options.js';
export { runMigrations } from './migrator.js';
export { adoptSchema, isForeignInstallation, SchemaMismatchError } from './schema-adoption.js';
export { col, index, createTable, addColumn } from './migration-columns.js';
export { bigintNumber, floatNumber, intBoolean, jsonColumn, nowSeconds } from './transformers.js';
export { runOutsideTransactions, serializeSqliteTransactions } from './sqlite-transactions.js';
export { wideParam } from './wide-param.js';
