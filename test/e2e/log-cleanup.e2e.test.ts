import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogPurgeService } from '@gw/log';
import type { TestDbKind } from '../support/databases.js';
import { testDatabases } from '../support/databases.js';
import { fillLogs } from '../support/log-fill.js';
import { CHAT, startRelayFixture, waitFor, type RelayFixture } from './relay-fixture.js';

const DAY = 86_400;
/** Old rows to delete: enough that the cleanup takes many batches on every database. */
const OLD_ROWS: Record<TestDbKind, number> = { sqlite: 200_000, mysql: 100_000, postgres: 200_000 };
const RECENT_ROWS = 500;

/**
 * A large log cleanup must not block the gateway: while it runs (observed through its progress, not a timing),
 * a relay request and /api/status are answered, and the cleanup is still going when they are.
 */
describe.each(testDatabases())('log cleanup on %s', (kind) => {
  let fx: RelayFixture;
  let key: string;
  const now = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    fx = await startRelayFixture(kind);
    await fx.channel();
    key = (await fx.token()).key;
    const old = OLD_ROWS[kind];
    await fillLogs(fx.ds, { rows: old, from: now - 60 * DAY, span: 30 * DAY });
    await fillLogs(fx.ds, { rows: RECENT_ROWS, from: now - DAY, span: RECENT_ROWS });
    // The fill ran on the gateway's own SQLite connection, in this process: the event loop stood still for
    // seconds, so the server's keep-alive timer on the root client's socket has expired without having run. Sent
    // at once, the DELETE went out on that socket as the timer closed it (ECONNRESET). One turn of the timers.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }, 240_000);

  afterAll(async () => {
    await fx?.close();
  });

  it('answers a relay request and /api/status while the delete runs, then has deleted every old row', async () => {
    const purge = fx.gw.gateway.app.get(LogPurgeService);
    let finished = false;
    const cleanup = fx.root.delete(`/api/log/?target_timestamp=${now - 7 * DAY}`).then((res) => {
      finished = true;
      return res;
    });
    await waitFor(async () => (purge.progress.deleted > 0 ? true : undefined), 'the cleanup to start', 30_000);

    const status = await fx.gw.client().get('/api/status');
    expect(status.body.success).toBe(true);
    const completion = await fx.openai(key).chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message.content).toBeTruthy();
    expect(finished, 'the cleanup had already finished: the requests did not overlap it').toBe(false);
    expect(purge.progress.deleted).toBeLessThan(OLD_ROWS[kind]);

    const res = await cleanup;
    expect(res.body).toEqual({ success: true, message: '', data: OLD_ROWS[kind] });
    const [left] = await fx.ds.query("SELECT COUNT(*) AS n FROM logs WHERE request_id LIKE 'fill-%'");
    expect(Number(left.n)).toBe(RECENT_ROWS);
  }, 240_000);

  it.runIf(kind === 'sqlite')('gives the freed pages back to the file system (incremental vacuum)', async () => {
    const [mode] = await fx.ds.query('PRAGMA auto_vacuum');
    expect(Number(mode.auto_vacuum)).toBe(2);
    const [free] = await fx.ds.query('PRAGMA freelist_count');
    expect(Number(free.freelist_count)).toBe(0);
  });
});
