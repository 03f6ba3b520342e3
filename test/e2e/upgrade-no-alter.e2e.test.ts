import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@gw/core';
import { startGateway } from '../../apps/gateway/src/bootstrap.js';
import { openRawDb } from '../fixtures/new-api/raw-db.js';
import { seedNewApiDatabase } from '../fixtures/new-api/seed.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../support/databases.js';

/**
 * The operator's database user may create tables but not alter new-api's (no ALTER on MySQL, not the
 * tables' owner on PostgreSQL): the columns the gateway needs cannot be added. Startup must stop with one
 * message naming them, not crash later on the first query.
 */
describe.each(testDatabases().filter((kind) => kind !== 'sqlite'))('adoption without ALTER rights on %s', (kind) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  /** A login that may read and write every table and create new ones, but not alter the existing ones. */
  async function restrictedDsn(db: TestDatabase): Promise<string> {
    const user = `gw_noalter_${randomBytes(3).toString('hex')}`;
    const password = 'no-alter-pass';
    const raw = await openRawDb(db);
    const dsn = new URL(db.env.SQL_DSN!);
    const database = dsn.pathname.slice(1);
    try {
      if (kind === 'mysql') {
        await raw.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
        await raw.query(`GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX ON \`${database}\`.* TO '${user}'@'%'`);
        cleanups.push(async () => {
          const admin = await openRawDb(db);
          await admin.query(`DROP USER '${user}'@'%'`);
          await admin.close();
        });
      } else {
        await raw.query(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
        await raw.query(`GRANT CONNECT, CREATE ON DATABASE ${database} TO ${user}`);
        await raw.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${user}`);
        await raw.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${user}`);
        await raw.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${user}`);
        cleanups.push(async () => {
          const admin = await openRawDb(db);
          await admin.query(`DROP OWNED BY ${user}`);
          await admin.query(`DROP ROLE ${user}`);
          await admin.close();
        });
      }
    } finally {
      await raw.close();
    }
    dsn.username = user;
    dsn.password = password;
    return dsn.toString();
  }

  it('stops at startup with one message naming the missing columns', async () => {
    const db = await createTestDatabase(kind);
    cleanups.push(() => db.drop());
    await seedNewApiDatabase(db, 'http://127.0.0.1:9');
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      SESSION_SECRET: 'e2e-session-secret-0123456789abcdef',
      SQL_DSN: await restrictedDsn(db),
    });
    const failure = await startGateway(config, { logger: false }).then(
      async (gateway) => {
        await gateway.close();
        return undefined;
      },
      (error: Error) => error,
    );
    expect(failure?.name).toBe('SchemaMismatchError');
    expect(failure?.message).toContain('channels.max_input_tokens');
    expect(failure?.message).toContain('logs.request_id');
    // A column whose own migration could not add it is named here too.
    expect(failure?.message).toContain('custom_oauth_providers.pkce_enabled');
    expect(failure?.message).toContain('channels.base_url_public');
    expect(failure?.message).toMatch(/could not be added automatically/);
  });
});
