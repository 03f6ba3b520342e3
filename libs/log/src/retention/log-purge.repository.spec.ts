import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqliteCheckpointService } from '@gw/database';
import { DataSource } from 'typeorm';
import { afterEach, describe, expect, it } from 'vitest';
import { LogPurgeRepository } from './log-purge.repository.js';

describe('LogPurgeRepository on SQLite', () => {
  let ds: DataSource | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await ds?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
    ds = dir = undefined;
  });

  it('hands back as many free pages as one vacuum step asks for, not one', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-purge-repo-'));
    ds = await new DataSource({
      type: 'better-sqlite3',
      database: join(dir, 'logs.db'),
      enableWAL: true,
      prepareDatabase: (db: { pragma(sql: string): unknown }) => {
        db.pragma('auto_vacuum = INCREMENTAL');
      },
    }).initialize();
    await ds.query('CREATE TABLE logs (id INTEGER PRIMARY KEY, content BLOB)');
    await ds.query(
      'WITH RECURSIVE seq(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM seq WHERE v < 5000) INSERT INTO logs (content) SELECT randomblob(400) FROM seq',
    );
    await ds.query('DELETE FROM logs');
    const repo = new LogPurgeRepository(ds, {} as SqliteCheckpointService);
    expect(await repo.sqliteIncrementalVacuum()).toBe(true);
    const free = await repo.sqliteFreePages();
    expect(free).toBeGreaterThan(300);

    await repo.sqliteVacuumPages(200);
    expect(await repo.sqliteFreePages()).toBe(free - 200);
    await repo.sqliteVacuumPages(free);
    expect(await repo.sqliteFreePages()).toBe(0);
  });
});
