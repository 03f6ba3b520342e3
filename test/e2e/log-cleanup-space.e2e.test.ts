import { existsSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillLogs } from '../support/log-fill.js';
import { startRelayFixture, waitFor, type RelayFixture } from './relay-fixture.js';

const DAY = 86_400;
const OLD_ROWS = 40_000;
const RECENT_ROWS = 500;
const MB = 2 ** 20;

const bytes = (file: string) => (existsSync(file) ? statSync(file).size : 0);

/**
 * On SQLite a log cleanup gives the space back: the freed pages leave the file (incremental vacuum) and the
 * WAL, which a busy gateway otherwise keeps at journal_size_limit for good, is cut to zero. The old rows sit
 * in two days, so their hourly and daily sums (which the cleanup keeps) are a few thousand rows, not the
 * bulk of the file.
 */
describe('log cleanup on SQLite gives the space back', () => {
  let fx: RelayFixture;
  let file: string;
  const now = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    fx = await startRelayFixture('sqlite');
    file = String(fx.ds.options.database);
    await fillLogs(fx.ds, { rows: OLD_ROWS, from: now - 12 * DAY, span: 2 * DAY });
    await fillLogs(fx.ds, { rows: RECENT_ROWS, from: now - DAY, span: RECENT_ROWS });
    // The sums cover every row before measuring, so their own growth does not hide or fake the cleanup's.
    const [last] = await fx.ds.query('SELECT MAX(id) AS id FROM logs');
    await waitFor(
      async () => {
        const [cursor] = await fx.ds.query("SELECT last_id FROM log_aggregate_cursors WHERE name = 'hourly'");
        return Number(cursor?.last_id ?? 0) >= Number(last.id) ? true : undefined;
      },
      'the hourly sums to cover the filled rows',
      30_000,
    );
  }, 120_000);

  afterAll(async () => {
    await fx?.close();
  });

  it('shrinks the file and cuts the WAL after deleting most rows', async () => {
    const before = { main: bytes(file), wal: bytes(`${file}-wal`) };
    const res = await fx.root.delete(`/api/log/?target_timestamp=${now - 7 * DAY}`);
    expect(res.body).toEqual({ success: true, message: '', data: OLD_ROWS });
    const after = { main: bytes(file), wal: bytes(`${file}-wal`) };
    const [free] = await fx.ds.query('PRAGMA freelist_count');
    const [pages] = await fx.ds.query('PRAGMA page_count');
    const shown = (s: typeof before) => `main ${(s.main / MB).toFixed(1)} MB + WAL ${(s.wal / MB).toFixed(1)} MB`;
    console.log(`before the cleanup: ${shown(before)}; after: ${shown(after)}; ${pages.page_count} pages, ${free.freelist_count} free`);

    expect(Number(free.freelist_count)).toBe(0);
    // The WAL was cut to zero; the gateway's own writes since (log flushes, sums) add at most a few pages.
    expect(after.wal).toBeLessThan(MB);
    expect(after.main + after.wal).toBeLessThan((before.main + before.wal) / 2);
  }, 60_000);
});
