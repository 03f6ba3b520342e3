import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';

/**
 * Two processes on one SQLite file (WORKERS=2, or two instances sharing it): each TypeORM transaction
 * must take the write lock when it begins. A deferred BEGIN that reads first and writes later fails at
 * once with SQLITE_BUSY_SNAPSHOT when the other process committed in between (the busy timeout does not
 * apply to that case): an admin's channel update answered 500 under load that way.
 */
describe('SQLite transactions of the gateway', () => {
  let dir: string;
  const sources: DataSource[] = [];
  afterEach(async () => {
    for (const ds of sources.splice(0)) await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(path: string): Promise<DataSource> {
    const ds = new DataSource(
      dataSourceOptions({ type: 'sqlite', path, poolSize: 1 } as Parameters<typeof dataSourceOptions>[0], {
        entities: [],
        migrations: [],
      }),
    );
    await ds.initialize();
    sources.push(ds);
    return ds;
  }

  it('take the write lock at BEGIN, so a read-then-write transaction never meets a newer commit', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-sqlite-lock-'));
    const path = join(dir, 'gw.db');
    const mine = await open(path);
    const other = await open(path);
    await mine.query('CREATE TABLE channels (id INTEGER PRIMARY KEY, priority INTEGER NOT NULL)');
    await mine.query('INSERT INTO channels (id, priority) VALUES (1, 0)');
    // The other process would wait its 30 s busy timeout for the lock; in this one process it must not block.
    await other.query('PRAGMA busy_timeout = 20');

    let otherDuring: unknown;
    await mine.transaction(async (manager) => {
      const [row] = await manager.query('SELECT priority FROM channels WHERE id = 1');
      otherDuring = await other.query('UPDATE channels SET priority = priority + 10 WHERE id = 1').catch((error: Error) => error);
      await manager.query('UPDATE channels SET priority = ? WHERE id = 1', [Number(row.priority) + 1]);
    });

    // The other process was held off until the transaction ended; then its write goes through.
    expect(String(otherDuring)).toMatch(/SQLITE_BUSY|database is locked/);
    await other.query('UPDATE channels SET priority = priority + 10 WHERE id = 1');
    const [row] = await mine.query('SELECT priority FROM channels WHERE id = 1');
    expect(Number(row.priority)).toBe(11);
  });
});
