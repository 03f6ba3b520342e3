import pg from 'pg';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresPoolOf, reportPostgresClientErrors } from './raw-handles.js';

const url = process.env.TEST_POSTGRES_URL;

describe.skipIf(!url)('reportPostgresClientErrors (PostgreSQL)', () => {
  let dataSource: DataSource;
  const reported: Error[] = [];

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'postgres', url, poolSize: 2 }).initialize();
    reportPostgresClientErrors(dataSource, (error) => reported.push(error));
  });
  afterAll(() => dataSource?.destroy());

  it('a held client whose connection the server ends reports it instead of ending the process, and its next query fails', async () => {
    const pool = postgresPoolOf(dataSource)!;
    const client = await pool.connect();
    const { rows } = await client.query({ text: 'SELECT pg_backend_pid() AS pid' });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    } finally {
      await admin.end();
    }
    // Without a listener, this 'error' would be an uncaught exception here.
    await vi.waitFor(() => expect(reported[0]?.message).toBe('terminating connection due to administrator command'));
    const failure = await client.query({ text: 'SELECT 1' }).catch((e: Error) => e);
    client.release(failure instanceof Error ? failure : undefined);
    expect(failure).toBeInstanceOf(Error);
    // The pool goes on with a new connection.
    expect((await pool.query({ text: 'SELECT 1 AS one' })).rows).toEqual([{ one: 1 }]);
  });
});
