/**
 * Whether a database error is the server refusing the statement's data: SQLSTATE class 22 (data exception),
 * 23 (integrity constraint) or 42 (syntax or access rule) on MySQL/MariaDB and PostgreSQL, SQLite's
 * constraint, type, size and plain SQL errors. Sent again, it fails again. Anything else (a dropped
 * connection, a deadlock, a lock timeout, a failover, a busy SQLite file) may pass later.
 */
export function isRefusedStatement(error: unknown): boolean {
  // TypeORM's QueryFailedError carries the driver's error.
  const e = ((error as { driverError?: unknown })?.driverError ?? error) as { code?: unknown; sqlState?: unknown; fatal?: unknown };
  if (!e || e.fatal === true) return false;
  // mysql2 puts the SQLSTATE in sqlState (its code is a name such as ER_DATA_TOO_LONG); pg puts it in code.
  const state =
    typeof e.sqlState === 'string' ? e.sqlState : typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined;
  if (state !== undefined) return /^(22|23|42)/.test(state);
  return typeof e.code === 'string' && /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE|ERROR)/.test(e.code);
}
