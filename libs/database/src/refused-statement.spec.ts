import { describe, expect, it } from 'vitest';
import { isRefusedStatement } from './refused-statement.js';

const error = (props: Record<string, unknown>) => Object.assign(new Error('x'), props);

describe('isRefusedStatement', () => {
  it('the server refusing the data: sent again, it fails again', () => {
    expect(isRefusedStatement(error({ code: 'ER_DATA_TOO_LONG', sqlState: '22001', errno: 1406 }))).toBe(true);
    expect(isRefusedStatement(error({ code: 'ER_NO_SUCH_TABLE', sqlState: '42S02' }))).toBe(true);
    expect(isRefusedStatement(error({ code: '23505', severity: 'ERROR' }))).toBe(true);
    expect(isRefusedStatement(error({ code: 'SQLITE_CONSTRAINT_NOTNULL' }))).toBe(true);
    // TypeORM's wrapper.
    expect(isRefusedStatement(error({ driverError: error({ code: '22P02' }) }))).toBe(true);
  });

  it('a connection, a lock or a busy file: may pass later', () => {
    expect(isRefusedStatement(error({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }))).toBe(false);
    expect(isRefusedStatement(error({ code: 'ER_LOCK_DEADLOCK', sqlState: '40001' }))).toBe(false);
    expect(isRefusedStatement(error({ code: 'ER_LOCK_WAIT_TIMEOUT', sqlState: 'HY000' }))).toBe(false);
    expect(isRefusedStatement(error({ code: '57P01', severity: 'FATAL' }))).toBe(false);
    expect(isRefusedStatement(error({ code: 'ECONNREFUSED' }))).toBe(false);
    expect(isRefusedStatement(error({ code: 'EPIPE' }))).toBe(false);
    expect(isRefusedStatement(error({ code: 'SQLITE_BUSY' }))).toBe(false);
    expect(isRefusedStatement(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isRefusedStatement(undefined)).toBe(false);
  });
});
