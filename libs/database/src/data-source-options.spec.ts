import { mkdtempSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { dataSourceOptions, sslOptions } from './data-source-options.js';

const parts = { entities: [], migrations: [] };

describe("the DSN's TLS mode reaches the drivers", () => {
  it('maps each mode to Node TLS options', () => {
    expect(sslOptions(undefined)).toBeUndefined();
    expect(sslOptions({ verifyCertificate: false, verifyHostname: false })).toEqual({ rejectUnauthorized: false });
    expect(sslOptions({ verifyCertificate: true, verifyHostname: true })).toEqual({ rejectUnauthorized: true });
    const verifyCa = sslOptions({ verifyCertificate: true, verifyHostname: false });
    expect(verifyCa?.rejectUnauthorized).toBe(true);
    expect(verifyCa?.checkServerIdentity?.()).toBeUndefined();
    expect(verifyCa).toHaveProperty('checkServerIdentity');
    const ca = join(mkdtempSync(join(tmpdir(), 'gw-ca-')), 'root.crt');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----');
    expect(sslOptions({ verifyCertificate: true, verifyHostname: true, caFile: ca })?.ca).toBe('-----BEGIN CERTIFICATE-----');
  });

  it('gives mysql2 and pg the ssl option, and nothing without TLS', () => {
    const tls = { verifyCertificate: false, verifyHostname: false };
    const mysql = dataSourceOptions({ type: 'mysql', host: 'h', database: 'd', poolSize: 5, tls }, parts);
    const postgres = dataSourceOptions({ type: 'postgres', host: 'h', database: 'd', poolSize: 5, tls }, parts);
    expect((mysql as { ssl?: unknown }).ssl).toEqual({ rejectUnauthorized: false });
    expect((postgres as { ssl?: unknown }).ssl).toEqual({ rejectUnauthorized: false });
    expect(
      (dataSourceOptions({ type: 'postgres', host: 'h', database: 'd', poolSize: 5 }, parts) as { ssl?: unknown }).ssl,
    ).toBeUndefined();
  });
});

/** The unlinked temporary files SQLite has open in this process (statement journals, temp tables). */
function openTempFiles(): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => /etilqs_/.test(target));
}

describe('the SQLite connection', () => {
  it.runIf(process.platform === 'linux')('keeps the statement journal of a batch of savepoints in memory, not in a temp file', () => {
    const options = dataSourceOptions(
      { type: 'sqlite', path: join(mkdtempSync(join(tmpdir(), 'gw-db-')), 'one.db'), poolSize: 1 },
      parts,
    ) as {
      database: string;
      prepareDatabase(db: Database.Database): void;
    };
    const db = new Database(options.database);
    try {
      db.pragma('journal_mode = WAL');
      options.prepareDatabase(db);
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
      db.prepare('INSERT INTO t (body) VALUES (?)').run('x'.repeat(300_000));
      const update = db.prepare('UPDATE t SET body = ? WHERE id = 1');
      // A batch as BatchedTransactions commits it: one transaction, each piece in its own savepoint. The
      // pages each piece rewrites go to the statement journal, far past SQLite's 64 KiB spill threshold.
      const piece = db.transaction((n: number) => update.run(String(n).repeat(300_000)));
      let during: string[] = [];
      db.transaction(() => {
        for (let n = 0; n < 5; n++) piece(n);
        during = openTempFiles();
      }).immediate();
      expect(during).toEqual([]);
      expect(db.pragma('temp_store', { simple: true })).toBe(2);
    } finally {
      db.close();
    }
  });
});
