import { BatchSizer, restAfterBatch } from './batch-sizer.js';

/**
 * The SQLite cleanup worker's code, run with `new Worker(source, { eval: true })`: a plain CommonJS string (as the
 * WAL checkpoint worker's) so one source works under vitest, which runs the `.ts` files, and in the tsc build.
 * The batch sizing is BatchSizer's and restAfterBatch's own code, put in as their source text, so the worker
 * and the specs share one rule.
 *
 * workerData: { file, driverPath, before, busyTimeoutMs, cacheKib, mmapBytes, targetMs, minRows, maxRows,
 * vacuumMinPages, vacuumMaxPages }.
 * Messages to the main thread: { kind: 'progress', deleted } after each batch, { kind: 'done', deleted } at the
 * end, { kind: 'failed', message, deleted } when a statement failed (the rows deleted until then stay deleted).
 * Message from the main thread: 'stop' — end after the current batch (the app is closing).
 *
 * Why a thread: better-sqlite3 is synchronous, so on the main connection every batch stopped the event loop for
 * its whole duration, and paced to leave the loop free half the time the 10 M-row cleanup ran at ~4,000 rows/s.
 * Here the batches never touch the event loop. What remains shared is SQLite's one write lock: a relay commit
 * on the main connection that finds it taken waits (its busy handler sleeps on the event loop), so a batch holds
 * it for about `targetMs` and the thread rests between batches long enough for such a commit to get in.
 */
export const SQLITE_PURGE_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
${BatchSizer.toString()}
${restAfterBatch.toString()}
let stopped = false;
parentPort.on('message', (message) => {
  if (message === 'stop') stopped = true;
});
const rest = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const MAX_BUSY_TRIES = 5;
const BUSY_REST_MS = 1000;

/**
 * One write transaction, and how long it held the write lock (from BEGIN IMMEDIATE's return to COMMIT's: what a
 * relay commit can wait on). The wait for the lock before it (the main connection writing) is not counted: a
 * busy gateway would otherwise shrink the batches to nothing.
 */
function inWriteLock(db, work) {
  db.prepare('BEGIN IMMEDIATE').run();
  const locked = performance.now();
  try {
    const result = work();
    db.prepare('COMMIT').run();
    return { result, heldMs: performance.now() - locked };
  } catch (error) {
    if (db.inTransaction) db.prepare('ROLLBACK').run();
    throw error;
  }
}

async function deleteOldRows(db, state) {
  const w = workerData;
  // The oldest rows through the created_at index, read outside the write lock (a reader never blocks the relay).
  const oldest = db.prepare('SELECT id FROM logs WHERE created_at < ? ORDER BY created_at LIMIT ?').pluck();
  // Old rows were written in id order, so a batch is usually one id range: the table's pages go in order and
  // the guard keeps any newer row inside the range. Scattered ids (a late import) go by list.
  const byRange = db.prepare('DELETE FROM logs WHERE id >= ? AND id <= ? AND created_at < ?');
  const byList = db.prepare('DELETE FROM logs WHERE id IN (SELECT value FROM json_each(?)) AND created_at < ?');
  const sizer = new BatchSizer(w.targetMs, w.minRows, w.maxRows);
  let busyTries = 0;
  while (!stopped) {
    const limit = sizer.current;
    const ids = oldest.all(w.before, limit);
    if (ids.length === 0) return;
    let low = ids[0];
    let high = ids[0];
    for (const id of ids) {
      if (id < low) low = id;
      if (id > high) high = id;
    }
    let locked;
    try {
      locked = inWriteLock(db, () =>
        high - low < 2 * ids.length ? byRange.run(low, high, w.before).changes : byList.run(JSON.stringify(ids), w.before).changes,
      );
    } catch (error) {
      // A transaction of the gateway held the lock past the busy timeout: try again later, a few times.
      if (!error || error.code !== 'SQLITE_BUSY' || ++busyTries > MAX_BUSY_TRIES) throw error;
      await rest(BUSY_REST_MS);
      continue;
    }
    busyTries = 0;
    const { result: count, heldMs } = locked;
    state.deleted += count;
    sizer.record(heldMs);
    parentPort.postMessage({ kind: 'progress', deleted: state.deleted });
    if (ids.length < limit && count === ids.length) return;
    await rest(restAfterBatch(heldMs));
  }
}

/** Hands the freed pages back to the file system a few at a time (auto_vacuum = INCREMENTAL only). */
async function vacuumFreePages(db) {
  const w = workerData;
  if (Number(db.pragma('auto_vacuum', { simple: true })) !== 2) return;
  const sizer = new BatchSizer(w.targetMs, w.vacuumMinPages, w.vacuumMaxPages);
  let free = Number(db.pragma('freelist_count', { simple: true }));
  while (free > 0 && !stopped) {
    // exec() steps the pragma to its end: one step of run() frees a single page.
    const { heldMs } = inWriteLock(db, () => db.exec('PRAGMA incremental_vacuum(' + sizer.current + ')'));
    sizer.record(heldMs);
    const left = Number(db.pragma('freelist_count', { simple: true }));
    if (left >= free) return;
    free = left;
    await rest(restAfterBatch(heldMs));
  }
}

async function main() {
  const w = workerData;
  const state = { deleted: 0 };
  let db;
  try {
    db = new Database(w.file, { fileMustExist: true, timeout: w.busyTimeoutMs });
    // Per connection: without it every commit of this connection would sync the WAL.
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = ' + w.cacheKib);
    // SQLite drops this connection's page cache whenever another connection (the relay's) committed; mapped
    // pages are the OS's and stay, so a batch does not read its index pages again with a system call each.
    db.pragma('mmap_size = ' + w.mmapBytes);
    await deleteOldRows(db, state);
    if (state.deleted > 0) await vacuumFreePages(db);
    parentPort.postMessage({ kind: 'done', deleted: state.deleted });
  } catch (error) {
    parentPort.postMessage({ kind: 'failed', message: String((error && error.message) || error), deleted: state.deleted });
  } finally {
    try {
      if (db) db.close();
    } catch {}
    parentPort.close();
  }
}
main();
`;
