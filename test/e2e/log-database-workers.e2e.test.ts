import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayChild, startRelayChild } from '../support/gateway-child.js';
import { waitFor } from './relay-fixture.js';

const MODEL = 'log-db-workers';
const CALLS = 8;

/** Reads a SQLite file beside the running gateway (WAL: readers never wait for its writer). */
function readSqlite<T>(path: string, sql: string): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).get() as T;
  } finally {
    db.close();
  }
}

/**
 * WORKERS=2 with LOG_SQL_DSN on a SQLite file of its own: the primary migrates both databases before forking,
 * every worker writes its logs there, and the hourly sums that both workers keep (racing for one cursor) stay
 * exact.
 */
describe('WORKERS=2 with the logs on their own SQLite file', () => {
  let dir: string;
  let logsPath: string;
  let relay: RelayChild;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-logdb-'));
    logsPath = join(dir, 'logs.db');
    const env = { WORKERS: '2', LOG_SQL_DSN: `sqlite:${logsPath}` };
    relay = await startRelayChild(env, { name: 'workers', models: [MODEL], options: { ModelPrice: { [MODEL]: 0.001 } } });
  }, 180_000);

  afterAll(async () => {
    await relay?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`${CALLS} calls over both workers: their logs on the log file only, the sums exact, a clean exit`, async () => {
    const { gw, key, root } = relay;
    // One connection per call, so the primary deals them to both workers.
    const calls = await Promise.all(
      Array.from({ length: CALLS }, () =>
        fetch(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
        }).then((res) => res.status),
      ),
    );
    expect(calls).toEqual(Array(CALLS).fill(200));

    const consume = () =>
      readSqlite<{ n: number; quota: number }>(logsPath, 'SELECT COUNT(*) AS n, SUM(quota) AS quota FROM logs WHERE type = 2');
    const written = await waitFor(async () => (consume().n === CALLS ? consume() : undefined), 'the consume logs in the log file', 15_000);
    const summed = await waitFor(
      async () => {
        const row = readSqlite<{ n: number | null; quota: number | null }>(
          logsPath,
          "SELECT SUM(count) AS n, SUM(quota) AS quota FROM log_hourly WHERE dim = 'all'",
        );
        return row.n === CALLS ? row : undefined;
      },
      'the hourly sums of both workers',
      30_000,
    );
    expect(summed.quota).toBe(written.quota);

    const stat = await root.get('/api/log/stat?type=2');
    expect(stat.body.data?.quota, stat.text).toBe(written.quota);
    const mainTables = readSqlite<{ n: number }>(
      gw.sqlitePath,
      "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('logs', 'log_hourly')",
    );
    expect(mainTables.n).toBe(0);

    gw.child.kill('SIGTERM');
    expect(await gw.exited, gw.output().slice(-2000)).toEqual({ code: 0, signal: null });
  }, 120_000);
});
