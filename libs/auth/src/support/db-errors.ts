/** A unique index refused the row (SQLite, MySQL/MariaDB or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } };
  const code = e?.driverError?.code ?? e?.code;
  const errno = e?.driverError?.errno ?? e?.errno;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'ER_DUP_ENTRY' || code === '23505' || errno === 1062;
}
