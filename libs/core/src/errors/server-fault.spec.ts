import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, serverFaultOf } from './server-fault.js';

const driverError = (fields: { code?: string; message?: string }) =>
  Object.assign(new Error('query failed'), {
    name: 'QueryFailedError',
    driverError: Object.assign(new Error(fields.message ?? 'x'), fields),
  });

describe('serverFaultOf', () => {
  it('tells an unreachable or overloaded database by the drivers codes and messages', () => {
    for (const code of ['ECONNREFUSED', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', '57P01', '08006', '53300', 'SQLITE_BUSY'])
      expect(isDatabaseUnavailable(driverError({ code })), code).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(serverFaultOf(driverError({ code: 'ETIMEDOUT' }))).toMatchObject({ status: 503, code: 'database_unavailable' });
  });

  it('keeps refused statements and program faults a 500', () => {
    for (const code of ['23505', '42P01', 'ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_UNIQUE', '57014'])
      expect(isDatabaseUnavailable(driverError({ code })), code).toBe(false);
    expect(serverFaultOf(new TypeError("Cannot read properties of undefined (reading 'id')"))).toMatchObject({ status: 500 });
    expect(serverFaultOf(undefined)).toMatchObject({ status: 500, code: 'internal_error' });
  });
});
