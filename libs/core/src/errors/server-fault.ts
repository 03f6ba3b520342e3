/**
 * What an unexpected error is answered with. A database that cannot be reached (refused or dropped
 * connection, a server shutting down, too many connections, SQLite's write lock held past the busy
 * timeout) is a 503 that a client may retry; anything else is a 500. new-api answers both with a 500,
 * but OpenAI's SDKs and load balancers treat a 503 as "try again", and an operator's alerting can tell
 * "the database is down" from "the gateway has a bug".
 */
export interface ServerFault {
  status: 500 | 503;
  message: string;
  code: 'database_unavailable' | 'internal_error';
}

export const DATABASE_UNAVAILABLE: ServerFault = {
  status: 503,
  message: 'the database is unavailable, try again shortly',
  code: 'database_unavailable',
};
export const INTERNAL_ERROR: ServerFault = { status: 500, message: 'internal server error', code: 'internal_error' };

export function serverFaultOf(error: unknown): ServerFault {
  return isDatabaseUnavailable(error) ? DATABASE_UNAVAILABLE : INTERNAL_ERROR;
}

/** Connection-level codes of the drivers (net errors, mysql2, pg's SQLSTATE classes 08/53/57, SQLite). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_QUERY_INTERRUPTED',
  'ER_LOCK_WAIT_TIMEOUT',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
]);
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0)/;
/** pg and its pool report a lost or unobtainable connection by message only. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Pool is closed|Can't add new command when connection is in closed state/i;

/** True for an error (or TypeORM's QueryFailedError around one) that says the database could not be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of [error, (error as { driverError?: unknown })?.driverError]) {
    if (typeof e !== 'object' || e === null) continue;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  }
  return false;
}
