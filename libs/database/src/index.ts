import { JobLockEntity } from './job-lock.entity.js';
import { CreateJobLocks1732262403200 } from './migrations/1732262403200-create-job-locks.js';

export { DatabaseModule } from './database.module.js';
export { dataSourceOptions, type SchemaParts } from './data-source-options.js';
export { runMigrations } from './migrator.js';
export { adoptSchema, isForeignInstallation, SchemaMismatchError } from './schema-adoption.js';
export { col, index, createTable, addColumn } from './migration-columns.js';
export { bigintNumber, floatNumber, intBoolean, jsonColumn, nowSeconds } from './transformers.js';
export { runOutsideTransactions, serializeSqliteTransactions } from './sqlite-transactions.js';
export { wideParam } from './wide-param.js';
export { withLargeSqliteCache } from './sqlite-cache.js';
export { gateSqliteWrites, SqliteWriteGate, sqliteWriteGateOf, WRITE_GATE } from './sqlite-write-gate.js';
// The one way to the drivers' raw connections, and the one batched-transaction runner built on them.
export {
  sqliteHandleOf,
  mysqlPoolOf,
  postgresPoolOf,
  reportPostgresClientErrors,
  poolUsageOf,
  type SqliteHandle,
  type MysqlConnection,
  type MysqlPool,
  type PgPool,
  type PgClient,
} from './raw-handles.js';
export { MysqlOneTrip } from './mysql-one-trip.js';
export { sqlCase, sqlLiteral, sqlSum } from './sql-literals.js';
export { PostgresOneTrip } from './postgres-one-trip.js';
export { GroupCommit, OneTripError, type BatchedMovement, type OneTripPlanner, type TripPlan, type Transactions } from './group-commit.js';
export { BatchedTransactions, batchedTransactionsOf } from './batched-transactions.js';
export { Rollback, type LedgerRow, type LedgerStep, type Plan, type PlanResult, type StepResult } from './plan.js';
export { JobLockService } from './job-lock.service.js';
export { SqliteCheckpointService } from './sqlite-checkpoint.service.js';
export { LOG_DATA_SOURCE, LOG_JOB_LOCKS, openLogDataSource } from './log-data-source.js';

/** The database lib's own table: the scheduled jobs' leader leases. */
export const databaseSchema = {
  entities: [JobLockEntity],
  migrations: [CreateJobLocks1732262403200],
};
export { isRefusedStatement } from './refused-statement.js';
