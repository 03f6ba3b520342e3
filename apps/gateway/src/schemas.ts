import { authSchema } from '@gw/auth';
import { channelSchema } from '@gw/channel';
import { databaseSchema, type SchemaParts } from '@gw/database';
import { logSchema } from '@gw/log';
import { optionSchema } from '@gw/option';
import { redemptionSchema } from '@gw/redemption';
import { relaySchema } from '@gw/relay';
import { taskSchema } from '@gw/task';
import { tokenSchema } from '@gw/token';
import { userSchema } from '@gw/user';

/**
 * Every module's tables, in one place: the composition root hands them to the data source, and the cluster
 * primary migrates with them before it forks any worker.
 */
/** Entities and migrations are classes. */
type SchemaClass = abstract new (...args: never[]) => unknown;

const schemas: { entities: SchemaClass[]; migrations: SchemaClass[] }[] = [
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

export const schemaParts: SchemaParts = {
  entities: schemas.flatMap((schema) => schema.entities),
  migrations: schemas.flatMap((schema) => schema.migrations),
};
