import { authSchema } from '@gw/auth';
import { channelSchema } from '@gw/channel';
import type { AppConfig } from '@gw/core';
import { databaseSchema, type SchemaParts } from '@gw/database';
import { logSchema, logStoreSchema } from '@gw/log';
import { optionSchema } from '@gw/option';
import { redemptionSchema } from '@gw/redemption';
import { relaySchema } from '@gw/relay';
import { taskSchema } from '@gw/task';
import { tokenSchema } from '@gw/token';
import { userSchema } from '@gw/user';

/** Entities and migrations are classes. */
type SchemaClass = abstract new (...args: never[]) => unknown;
type Schema = { entities: SchemaClass[]; migrations: SchemaClass[] };

/**
 * Every module's tables, in one place: the composition root hands them to the data source(s), and the cluster
 * primary migrates with them before it forks any worker.
 */
const schemas: Schema[] = [
  databaseSchema,
  optionSchema,
  userSchema,
  authSchema,
  channelSchema,
  logSchema,
  redemptionSchema,
  tokenSchema,
  taskSchema,
  relaySchema,
];

function combine(parts: Schema[]): SchemaParts {
  return { entities: parts.flatMap((schema) => schema.entities), migrations: parts.flatMap((schema) => schema.migrations) };
}

export interface SchemaLayout {
  main: SchemaParts;
  /** The log database's tables (LOG_SQL_DSN): the logs, their hourly sums and the job leases of the jobs on them. */
  logs?: SchemaParts;
}

/**
 * Where each table lives: everything on the main database, unless LOG_SQL_DSN moves the log store's tables to
 * their own (as new-api's LOG_DB holds `logs`; `quota_data` stays on the main database there too).
 */
export function schemaLayout(config: AppConfig): SchemaLayout {
  if (!config.logDatabase) return { main: combine([...schemas, logStoreSchema]) };
  return { main: combine(schemas), logs: combine([databaseSchema, logStoreSchema]) };
}
