import type { DataSource } from 'typeorm';

/** SQLite page cache while a bulk job runs, in KiB (negative: a size, not a page count). */
const BULK_CACHE_KIB = -65_536;

const raised = new WeakMap<DataSource, { depth: number; everyday: number }>();

/**
 * Runs `work` with a larger SQLite page cache. A cleanup or a backfill touches pages all over the log indexes
 * (most are in user, model or token order) and the hourly sums; with the gateway's small everyday cache (4 MB)
 * nearly every touch is a miss. The cache goes back to its everyday size when the last such job ends (its
 * pages are freed). Other databases: `work` as it is.
 */
export async function withLargeSqliteCache<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  if (dataSource.options.type !== 'better-sqlite3') return work();
  let state = raised.get(dataSource);
  if (!state) {
    const [row] = await dataSource.query('PRAGMA cache_size');
    state = { depth: 0, everyday: Math.trunc(Number(row?.cache_size ?? -4096)) };
    raised.set(dataSource, state);
    await dataSource.query(`PRAGMA cache_size = ${BULK_CACHE_KIB}`);
  }
  state.depth++;
  try {
    return await work();
  } finally {
    if (--state.depth === 0) {
      raised.delete(dataSource);
      await dataSource.query(`PRAGMA cache_size = ${state.everyday}`);
    }
  }
}
