import { WRITE_INTENT } from '@gw/database';
import { BatchSizer, restAfterBatch } from './batch-sizer.js';

/**
 * The SQLite cleanup worker's code, run with `new Worker(source, { eval: true })`: a plain CommonJS string (as the
 * WAL checkpoint worker's) so one source works under vitest, which runs the `.ts` files, and in the tsc build.
 * The batch sizing is BatchSizer's and restAfterBatch's own code, put in as their source text, so the worker
 * and the specs share one rule.
 *
 * workerData: { file, driverPath, before, writeIntent, busyTimeoutMs, cacheKib, mmapBytes, holdMs, pieceMs,
 * readRows, minRows, maxRows, vacuumMinPages, vacuumMaxPages }.
 * Messages to the main thread: { kind: 'progress', deleted } after each transaction, { kind: 'done', deleted } at
 * the end, { kind: 'failed', message, deleted } when a statement failed (the rows deleted until then stay deleted).
 * Message from the main thread: 'stop' — end after the current transaction (the app is closing).
 *
 * Why a thread: better-sqlite3 is synchronous, so on the main connection every batch stopped the event loop for
 * its whole duration, and paced to leave the loop free half the time the 10 M-row cleanup ran at ~4,000 rows/s.
 * Here the batches never touch the event loop. What remains shared is SQLite's one write lock: a relay write on
 * the main connection that finds it taken waits in SQLite's busy handler with the event loop stopped. So a
 * transaction holds it for at most \`holdMs\`, gives it up after the current piece (about \`pieceMs\`) as soon as
 * a write of the gateway waits (\`writeIntent\`), and the thread rests between transactions.
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
/** The longest the cleanup waits for the gateway's writes to end before it takes the lock anyway. */
const MAX_YIELD_MS = 100;
/** How often the cleanup copies its WAL frames back (in place of SQLite's automatic checkpoint at 1000 pages). */
const CHECKPOINT_EVERY_MS = 50;

const writeIntent = workerData.writeIntent;
const WRITES = ${WRITE_INTENT.writes};
const WORKER_HOLDS = ${WRITE_INTENT.workerHolds};
/** How many writes of the gateway run now (and so may wait for the lock); 0 when it does not tell. */
const gatewayWrites = () => (writeIntent ? Atomics.load(writeIntent, WRITES) : 0);
/** Tells the gateway's writes whether this thread holds the lock; letting go wakes those that wait for it. */
function holding(held) {
  if (!writeIntent) return;
  Atomics.store(writeIntent, WORKER_HOLDS, held ? 1 : 0);
  if (!held) Atomics.notify(writeIntent, WORKER_HOLDS);
}

/** Rests until no write of the gateway runs: it is given the lock, not made to race this thread for it. */
async function letGatewayWritesPass() {
  for (let waited = 0; gatewayWrites() > 0 && waited < MAX_YIELD_MS; waited++) await rest(1);
}

/**
 * One write transaction made of pieces: \`piece()\` runs once, then again while it returns true, the transaction
 * is under \`holdMs\` old and no write of the gateway is waiting. Returns how long it held the write lock (from
 * BEGIN IMMEDIATE's return to COMMIT's; the wait for the lock before it is not counted: a busy gateway would
 * otherwise shrink the pieces to nothing). A transaction of the gateway that holds the lock past the busy
 * timeout makes it try again a second later, a few times.
 */
async function inYieldingTransaction(db, piece) {
  for (let tries = 1; ; tries++) {
    await letGatewayWritesPass();
    try {
      db.prepare('BEGIN IMMEDIATE').run();
      break;
    } catch (error) {
      if (!error || error.code !== 'SQLITE_BUSY' || tries > MAX_BUSY_TRIES) throw error;
      await rest(BUSY_REST_MS);
    }
  }
  const locked = performance.now();
  holding(true);
  try {
    while (piece() && performance.now() - locked < workerData.holdMs && gatewayWrites() === 0 && !stopped);
    db.prepare('COMMIT').run();
    return performance.now() - locked;
  } catch (error) {
    if (db.inTransaction) db.prepare('ROLLBACK').run();
    throw error;
  } finally {
    holding(false);
    checkpointWal(db);
  }
}

let lastCheckpoint = 0;
/**
 * Copies the WAL back into the file (PASSIVE: it never takes the write lock) at most every CHECKPOINT_EVERY_MS,
 * on this thread, while the gateway's writes go ahead.
 */
function checkpointWal(db) {
  const now = performance.now();
  if (now - lastCheckpoint < CHECKPOINT_EVERY_MS) return;
  lastCheckpoint = now;
  db.pragma('wal_checkpoint(PASSIVE)');
}

/**
 * Deletes every row older than \`before\`. The rows to go are read first, outside the write lock (a reader never
 * blocks the relay); each write transaction then only deletes, in pieces of about \`pieceMs\` each, until it has
 * held the lock for \`holdMs\` or a write of the gateway waits for it (the shared counter, see
 * sqlite-write-intent in @gw/database): that write then waits for one piece, not for the whole transaction.
 */
async function deleteOldRows(db, state) {
  const w = workerData;
  // The oldest rows through the created_at index.
  const oldest = db.prepare('SELECT id FROM logs WHERE created_at < ? ORDER BY created_at LIMIT ?').pluck();
  // Old rows were written in id order, so a piece is usually one id range: the table's pages go in order and
  // the guard keeps any newer row inside the range. Scattered ids (a late import) go by list.
  const byRange = db.prepare('DELETE FROM logs WHERE id >= ? AND id <= ? AND created_at < ?');
  const byList = db.prepare('DELETE FROM logs WHERE id IN (SELECT value FROM json_each(?)) AND created_at < ?');
  const deletePiece = (ids) => {
    let low = ids[0];
    let high = ids[0];
    for (const id of ids) {
      if (id < low) low = id;
      if (id > high) high = id;
    }
    return high - low < 2 * ids.length ? byRange.run(low, high, w.before).changes : byList.run(JSON.stringify(ids), w.before).changes;
  };
  const pieces = new BatchSizer(w.pieceMs, w.minRows, w.maxRows);
  while (!stopped) {
    const ids = oldest.all(w.before, w.readRows);
    if (ids.length === 0) return;
    let next = 0;
    while (next < ids.length && !stopped) {
      // Counted once committed: a transaction that fails is rolled back whole.
      let pending = 0;
      const held = await inYieldingTransaction(db, () => {
        const piece = ids.slice(next, next + pieces.current);
        const started = performance.now();
        pending += deletePiece(piece);
        pieces.record(performance.now() - started);
        next += piece.length;
        return next < ids.length;
      });
      state.deleted += pending;
      parentPort.postMessage({ kind: 'progress', deleted: state.deleted });
      await rest(restAfterBatch(held));
    }
  }
}

/** Hands the freed pages back to the file system a few at a time (auto_vacuum = INCREMENTAL only). */
async function vacuumFreePages(db) {
  const w = workerData;
  if (Number(db.pragma('auto_vacuum', { simple: true })) !== 2) return;
  const pages = new BatchSizer(w.pieceMs, w.vacuumMinPages, w.vacuumMaxPages);
  const freePages = () => Number(db.pragma('freelist_count', { simple: true }));
  let free = freePages();
  while (free > 0 && !stopped) {
    let progressed = true;
    const held = await inYieldingTransaction(db, () => {
      const started = performance.now();
      // exec() steps the pragma to its end: one step of run() frees a single page.
      db.exec('PRAGMA incremental_vacuum(' + pages.current + ')');
      pages.record(performance.now() - started);
      const left = freePages();
      progressed = left < free;
      free = left;
      return progressed && free > 0;
    });
    if (!progressed) return;
    await rest(restAfterBatch(held));
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
    // SQLite runs a connection's automatic checkpoint inside its COMMIT, after the lock is let go but before
    // this thread lowers its flag: the gateway's writes waited on it too (measured at load 7: commits of 7.6 ms
    // on average instead of 2.8). This thread checkpoints after lowering it instead (checkpointWal): left to the
    // gateway's checkpoint worker alone, the WAL grew to 400 MB in 3 minutes, and the gateway's own safety-net
    // checkpoint then ran in its commits, on the event loop.
    db.pragma('wal_autocheckpoint = 0');
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
