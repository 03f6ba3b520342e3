import { STORAGE_KEYS, readJson, writeJson } from '@console/kit';

/** Every column of the logs table; admin-only ones are dropped for users before the preferences apply. */
export const LOG_COLUMN_KEYS = [
  'time',
  'channel',
  'user',
  'token',
  'group',
  'type',
  'model',
  'use_time',
  'prompt',
  'completion',
  'cost',
  'retry',
  'details',
] as const;
export type LogColumnKey = (typeof LOG_COLUMN_KEYS)[number];

export const ADMIN_ONLY_COLUMNS: readonly LogColumnKey[] = ['channel', 'user', 'retry'];

export type ColumnVisibility = Record<LogColumnKey, boolean>;

/** The stored choice (`logs-table-columns`, as new-api) over all-visible defaults; unknown keys are ignored. */
export function readColumnVisibility(): ColumnVisibility {
  const stored = readJson<Partial<Record<string, unknown>>>(STORAGE_KEYS.logsTableColumns) ?? {};
  const visibility = {} as ColumnVisibility;
  for (const key of LOG_COLUMN_KEYS) visibility[key] = stored[key] !== false;
  return visibility;
}

export function writeColumnVisibility(visibility: ColumnVisibility): void {
  writeJson(STORAGE_KEYS.logsTableColumns, visibility);
}

/** The columns a role may see, in table order. */
export function columnsFor(admin: boolean): LogColumnKey[] {
  return LOG_COLUMN_KEYS.filter((key) => admin || !ADMIN_ONLY_COLUMNS.includes(key));
}
