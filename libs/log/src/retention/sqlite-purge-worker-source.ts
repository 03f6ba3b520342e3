import { WRITE_GATE } from '@gw/database';
import { BatchSizer, restAfterBatch } from './batch-sizer.js';

/**
 * The SQLite cleanup worker's code, run with `new Worker(source, { eval: true })`: a plain CommonJS string (as the
 * WAL checkpoint worker's) so one source works under vitest, which runs the `.ts` files, and in the tsc build.
 * The batch sizing is BatchSizer's and restAfterBatch's own code, put in as their source text, so the worker
 * and the specs share one rule.
 *
 * workerData: { file, driverPath, before, gate, busyTimeoutMs, cacheKib, mmapBytes, ...SqlitePurgePacing }; `gate`
 * is the shared memory of the main connection's SqliteWriteGate (@gw/database).
 * Messages to the main thread: { kind: 'progress', deleted } after each transaction, { kind: 'done', deleted } at
 * the end, { kind: 'failed', message, deleted } when a statement failed (the rows deleted until then stay deleted).
 * Message from the main thread: 'stop' — end after the current transaction (the app is closing).
 *
 * Why a thread: better-sqlite3 is synchronous, so on the main connection every batch stopped the event loop for
 * its whole duration, and paced to leave the loop free half the time the 10 M-row cleanup ran at ~4,000 rows/s.
 * Here the batches never touch the event loop. What remains shared is SQLite's one write lock. A main-thread
 * write that met it slept in SQLite's busy handler (1, 2, 5 ms … steps) with the event loop stopped: measured at
 * 10 M rows, 1 write in 10 did, ~8 ms each, and the relay's p95 was 3.5× idle. So the two threads meet in shared
 * memory first (the gate): the worker raises it while it holds the lock, deletes in pieces of about `pieceMs`
 * and commits early when a main-thread write announces itself, and starts no transaction while one is
 * announced; the main thread's write awaits the commit (Atomics.waitAsync) instead of sleeping in the handler.
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
// The main connection's write gate (SqliteWriteGate's slots): 1 while this thread holds the write lock, and
// the count of main-thread writes waiting or running.
const gate = workerData.gate;
const HOLDS = ${WRITE_GATE.workerHolds};
const MAIN_WRITES = ${WRITE_GATE.mainWrites};
const mainWantsToWrite = () => Atomics.load(gate, MAIN_WRITES) > 0;

/**
 * Lets the main thread's waiting writes go first: this thread sleeps (off the event loop) until none is left, or
 * for GIVE_WAY_MS at most: a gateway that writes back to back would otherwise never let the cleanup in (its
 * writes then wait on the gate for one piece and the commit).
 */
const GIVE_WAY_MS = 50;
async function giveWayToMainWrites() {
  const until = performance.now() + GIVE_WAY_MS;
  while (mainWantsToWrite() && !stopped && performance.now() < until) await rest(1);
}

/**
 * One write transaction, and how long it held the write lock (from BEGIN IMMEDIATE's return to COMMIT's: what a
 * relay write can wait on). The wait for the lock before it (the main connection writing) is not counted: a
 * busy gateway would otherwise shrink the batches to nothing. While it holds the lock the gate says so; the
 * commit wakes the main-thread writes waiting on it.
 */
function inWriteLock(db, work) {
  db.prepare('BEGIN IMMEDIATE').run();
  Atomics.store(gate, HOLDS, 1);
  const locked = performance.now();
  try {
    const result = work(locked);
    db.prepare('COMMIT').run();
    return { result, heldMs: performance.now() - locked };
  } catch (error) {
    if (db.inTransaction) db.prepare('ROLLBACK').run();
    throw error;
  } finally {
    Atomics.store(gate, HOLDS, 0);
    Atomics.notify(gate, HOLDS);
  }
}

/**
 * Deletes \`ids\` (oldest first) in pieces of \`pieceRows\` inside one transaction, until it has held the lock
 * \`targetMs\` or a main-thread write asks for the lock: that write then waits one piece and the commit, not a
 * whole transaction. Returns the rows deleted and the ids it reached.
 */
function deletePieces(db, statements, ids, pieceRows, pieceSizer, locked) {
  const w = workerData;
  let count = 0;
  let done = 0;
  // One piece always goes: a gateway that writes back to back would otherwise have every transaction commit
  // empty, and the cleanup would never move. A main-thread write waits for that piece and the commit.
  while (done < ids.length && (done === 0 || (!mainWantsToWrite() && performance.now() - locked < w.targetMs))) {
    const piece = ids.slice(done, done + pieceRows);
    let low = piece[0];
    let high = piece[0];
    for (const id of piece) {
      if (id < low) low = id;
      if (id > high) high = id;
    }
    const started = performance.now();
    // Old rows were written in id order, so a piece is usually one id range: the table's pages go in order and
    // the guard keeps any newer row inside the range. Scattered ids (a late import) go by list.
    count +=
      high - low < 2 * piece.length
        ? statements.byRange.run(low, high, w.before).changes
        : statements.byList.run(JSON.stringify(piece), w.before).changes;
    pieceSizer.record(performance.now() - started);
    done += piece.length;
  }
  return { count, done };
}

let lastCheckpoint = 0;
/**
 * This connection's automatic checkpoint is off: SQLite would run it inside COMMIT, while the gate still says
 * the lock is held, and main-thread writes would wait for the copy. Instead the worker copies the WAL here,
 * between its transactions, right before the next one: its first write then finds every frame copied and
 * starts the WAL over, so the WAL stays short (left to the gateway's checkpoint worker alone, which cannot time
 * its checkpoints between this thread's transactions, an earlier try saw it reach 400 MB in 3 minutes).
 */
function checkpointNow(db) {
  const now = performance.now();
  if (now - lastCheckpoint < workerData.checkpointEveryMs) return;
  lastCheckpoint = now;
  db.pragma('wal_checkpoint(PASSIVE)');
}

async function deleteOldRows(db, state) {
  const w = workerData;
  // The oldest rows through the created_at index, read outside the write lock (a reader never blocks the relay).
  const oldest = db.prepare('SELECT id FROM logs WHERE created_at < ? ORDER BY created_at LIMIT ?').pluck();
  const statements = {
    byRange: db.prepare('DELETE FROM logs WHERE id >= ? AND id <= ? AND created_at < ?'),
    byList: db.prepare('DELETE FROM logs WHERE id IN (SELECT value FROM json_each(?)) AND created_at < ?'),
  };
  const pieceSizer = new BatchSizer(w.pieceMs, w.minRows, w.maxRows);
  const piecesPerTransaction = Math.max(1, Math.ceil(w.targetMs / w.pieceMs));
  let busyTries = 0;
  while (!stopped) {
    const pieceRows = pieceSizer.current;
    const limit = pieceRows * piecesPerTransaction;
    const ids = oldest.all(w.before, limit);
    if (ids.length === 0) return;
    await giveWayToMainWrites();
    checkpointNow(db);
    let locked;
    try {
      locked = inWriteLock(db, (since) => deletePieces(db, statements, ids, pieceRows, pieceSizer, since));
    } catch (error) {
      // A transaction of the gateway held the lock past the busy timeout: try again later, a few times.
      if (!error || error.code !== 'SQLITE_BUSY' || ++busyTries > MAX_BUSY_TRIES) throw error;
      await rest(BUSY_REST_MS);
      continue;
    }
    busyTries = 0;
    const { result, heldMs } = locked;
    state.deleted += result.count;
    parentPort.postMessage({ kind: 'progress', deleted: state.deleted });
    if (result.done === ids.length && ids.length < limit && result.count === ids.length) return;
    await rest(restAfterBatch(heldMs, w.restRatio));
  }
}

/** Hands the freed pages back to the file system a few at a time (auto_vacuum = INCREMENTAL only). */
async function vacuumFreePages(db) {
  const w = workerData;
  if (Number(db.pragma('auto_vacuum', { simple: true })) !== 2) return;
  // A step cannot be cut short when a main-thread write asks for the lock: each is one piece's time.
  const sizer = new BatchSizer(w.pieceMs, w.vacuumMinPages, w.vacuumMaxPages);
  let free = Number(db.pragma('freelist_count', { simple: true }));
  while (free > 0 && !stopped) {
    await giveWayToMainWrites();
    checkpointNow(db);
    // exec() steps the pragma to its end: one step of run() frees a single page.
    const { heldMs } = inWriteLock(db, () => db.exec('PRAGMA incremental_vacuum(' + sizer.current + ')'));
    sizer.record(heldMs);
    const left = Number(db.pragma('freelist_count', { simple: true }));
    if (left >= free) return;
    free = left;
    await rest(restAfterBatch(heldMs, w.restRatio));
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
