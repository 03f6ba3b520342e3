import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { SqliteCheckpointService } from './sqlite-checkpoint.service.js';

const autocheckpoint = (ds: DataSource) =>
  (ds.driver as unknown as { databaseConnection: { pragma(sql: string, o: object): unknown } }).databaseConnection.pragma(
    'wal_autocheckpoint',
    { simple: true },
  );

describe('SqliteCheckpointService', () => {
  let ds: DataSource | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await ds?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
    ds = dir = undefined;
  });

  it('runs the checkpointer for the life of the module on a SQLite file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-ckpt-service-'));
    ds = await new DataSource({ type: 'better-sqlite3', database: join(dir, 'gateway.db'), enableWAL: true }).initialize();
    const service = new SqliteCheckpointService(ds, ds);

    service.onModuleInit();
    expect(autocheckpoint(ds)).toBe(10_000);
    await service.onModuleDestroy();
    expect(autocheckpoint(ds)).toBe(1000);
  });

  it('leaves an in-memory database alone', async () => {
    ds = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    const service = new SqliteCheckpointService(ds, ds);
    service.onModuleInit();
    expect(autocheckpoint(ds)).toBe(1000);
    await service.onModuleDestroy();
  });
});
