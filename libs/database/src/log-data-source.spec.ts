import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@gw/core';
import { openLogDataSource } from './log-data-source.js';

const parts = { entities: [], migrations: [] };

describe('openLogDataSource', () => {
  it('opens the SQLite file LOG_SQL_DSN names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-logdb-'));
    try {
      const config = loadConfig({ DATA_DIR: dir, SESSION_SECRET: 's', LOG_SQL_DSN: `sqlite:${join(dir, 'logs', 'logs.db')}` });
      const logs = await openLogDataSource(config, parts);
      expect(logs.options).toMatchObject({ type: 'better-sqlite3', database: join(dir, 'logs', 'logs.db') });
      await logs.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops with one error naming LOG_SQL_DSN and the database when it cannot be opened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-logdb-'));
    try {
      // A file where the log file's directory should be: the directory cannot be created.
      writeFileSync(join(dir, 'blocked'), '');
      const config = loadConfig({ DATA_DIR: dir, SESSION_SECRET: 's', LOG_SQL_DSN: `sqlite:${join(dir, 'blocked', 'logs.db')}` });
      await expect(openLogDataSource(config, parts)).rejects.toThrow(
        /the log database \(LOG_SQL_DSN, sqlite .*blocked\/logs\.db\) could not be opened/,
      );
      const unreachable = loadConfig({ DATA_DIR: dir, SESSION_SECRET: 's', LOG_SQL_DSN: 'mysql://root@127.0.0.1:1/logs' });
      await expect(openLogDataSource(unreachable, parts)).rejects.toThrow(/LOG_SQL_DSN, mysql 127\.0\.0\.1:1\/logs/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
