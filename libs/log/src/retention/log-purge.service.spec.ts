import { describe, expect, it, vi } from 'vitest';
import type { LogPurgeRepository } from './log-purge.repository.js';
import { LogPurgeService } from './log-purge.service.js';

/**
 * An in-memory SQLite log store (cleaned on the main connection: no file for a worker) holding `rows` old rows
 * (ids 1..rows), whose WAL cut answers `cuts` in turn.
 */
function fakeSqlite(rows: number, cuts: Array<boolean | undefined>) {
  let left = Array.from({ length: rows }, (_, i) => i + 1);
  let free = 0;
  const repo = {
    isSqlite: true,
    sqliteFile: () => undefined,
    oldestIds: vi.fn(async (_before: number, limit: number) => left.slice(0, limit)),
    deleteIds: vi.fn(async (ids: number[]) => {
      left = left.filter((id) => !ids.includes(id));
      free += ids.length;
      return ids.length;
    }),
    withLargeSqliteCache: <T>(work: () => Promise<T>) => work(),
    sqliteIncrementalVacuum: vi.fn(async () => true),
    sqliteFreePages: vi.fn(async () => free),
    sqliteVacuumPages: vi.fn(async (pages: number) => {
      free = Math.max(0, free - pages);
    }),
    sqliteTruncateWal: vi.fn(() => {
      const answer = cuts.shift();
      return answer === undefined ? undefined : Promise.resolve(answer);
    }),
  };
  return { repo, service: new LogPurgeService(repo as unknown as LogPurgeRepository), freePages: () => free };
}

describe('LogPurgeService on SQLite', () => {
  it('hands the freed pages back, then cuts the WAL, retrying while the database is busy', async () => {
    const { repo, service, freePages } = fakeSqlite(300, [false, false, true, true]);
    expect(await service.purgeBefore(1_000)).toBe(300);
    expect(freePages()).toBe(0);
    expect(repo.sqliteTruncateWal).toHaveBeenCalledTimes(3);
  });

  it('gives up on the WAL after a few busy tries, the rows still deleted', async () => {
    const { repo, service } = fakeSqlite(10, Array(10).fill(false));
    expect(await service.purgeBefore(1_000)).toBe(10);
    expect(repo.sqliteTruncateWal).toHaveBeenCalledTimes(5);
  });

  it('does not retry when there is no WAL to cut, nor touch it when nothing was deleted', async () => {
    const { repo, service } = fakeSqlite(10, [undefined, true]);
    expect(await service.purgeBefore(1_000)).toBe(10);
    expect(repo.sqliteTruncateWal).toHaveBeenCalledTimes(1);
    expect(await service.purgeBefore(1_000)).toBe(0);
    expect(repo.sqliteTruncateWal).toHaveBeenCalledTimes(1);
  });
});
