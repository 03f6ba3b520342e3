/**
 * The checkpoint worker's code, run with `new Worker(source, { eval: true })`. It is a plain CommonJS
 * string rather than a module file so that one source works both under vitest (which runs the `.ts`
 * sources, where a worker could not load a `.ts` file) and in the tsc build in `dist/`.
 *
 * workerData: { file, driverPath, busyTimeoutMs, ...CheckpointPacing }. `driverPath` is better-sqlite3 as
 * resolved by the main thread: an eval'd worker resolves `require` from the process's working directory,
 * not from this package.
 *
 * Messages to the main thread: { kind: 'failing', message } on the first failure after a success (one
 * warning per outage, not one every tick), { kind: 'recovered' } when checkpoints work again.
 * { kind: 'truncated', id, done } answers a { kind: 'truncate', id } request.
 * Messages from the main thread: 'stop' — close the connection and let the thread end on its own, so
 * SQLite is never interrupted mid-checkpoint; { kind: 'truncate', id } — one TRUNCATE checkpoint (below).
 */
export const WAL_CHECKPOINT_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);

let db;
let timer;
let stopped = false;
let failing = false;
// Short at first: the first look measures how fast the log grows.
let delayMs = workerData.minIntervalMs;
let lastFrames = 0;
let lastAt = performance.now();

function report(error) {
  if (failing) return;
  failing = true;
  parentPort.postMessage({ kind: 'failing', message: String((error && error.message) || error) });
}

/**
 * Paces checkpoints by how fast the WAL grows, so that each finds about targetFrames new frames. Under
 * heavy writes the worker then keeps up, and the main connection's safety checkpoint (the only one that
 * can restart the log while writes never pause) finds little left to copy. Barely written or idle, it
 * looks every maxIntervalMs: a PASSIVE checkpoint with nothing to copy does no I/O.
 */
function nextDelay(walFrames) {
  const now = performance.now();
  // A smaller count than last time means the main connection restarted the log in between; the frames
  // written before the restart are not seen.
  const restarted = walFrames < lastFrames;
  const grown = restarted ? walFrames : walFrames - lastFrames;
  const elapsedMs = now - lastAt;
  const wasBusy = lastFrames >= workerData.targetFrames / 2;
  lastFrames = walFrames;
  lastAt = now;
  let paced = grown > 0 ? (elapsedMs * workerData.targetFrames) / grown : workerData.maxIntervalMs;
  // A restart of a busy log was most likely the main connection's safety checkpoint: the worker was too
  // slow, whatever the undercounted growth says.
  if (restarted && wasBusy) paced = Math.min(paced, delayMs / 2);
  return Math.min(workerData.maxIntervalMs, Math.max(workerData.minIntervalMs, paced));
}

/**
 * SQLite restarts the log (writes it from its start again, so the file stops growing) only when a
 * checkpoint has copied every frame before the main connection's next write. Frames committed while a
 * checkpoint ran are therefore copied at once by another, short one, a couple of times: between two
 * bursts of commits this usually lands in a pause.
 */
function checkpointAndChase() {
  // PASSIVE copies what it can without waiting for (or blocking) the main connection's writer.
  let result = db.pragma('wal_checkpoint(PASSIVE)')[0];
  for (let round = 0; round < workerData.chaseRounds && result.log > 0; round++) {
    const again = db.pragma('wal_checkpoint(PASSIVE)')[0];
    const caughtUp = again.log <= result.log;
    result = again;
    if (caughtUp) break;
  }
  return result;
}

function checkpoint() {
  try {
    const result = checkpointAndChase();
    // log is -1 when another checkpoint (the main connection's) held the lock: keep the pace.
    if (result.log >= 0) delayMs = nextDelay(result.log);
    if (failing) {
      failing = false;
      parentPort.postMessage({ kind: 'recovered' });
    }
  } catch (error) {
    delayMs = workerData.maxIntervalMs;
    report(error);
  }
  timer = setTimeout(checkpoint, delayMs);
}

function stop() {
  if (stopped) return;
  stopped = true;
  clearTimeout(timer);
  try {
    if (db) db.close();
  } catch (error) {
    report(error);
  }
  parentPort.close();
}

/**
 * Copies every frame and cuts the WAL to zero bytes, asked for after a large delete: between restarts the
 * log is only cut back to journal_size_limit, so tens of megabytes would stay on disk for good. It takes
 * the writer lock, so a commit on the main connection waits (its busy handler sleeps on the event loop)
 * while it runs: a short busy timeout makes it give up instead of queueing behind a long transaction.
 * done is false when it could not finish (the log keeps its size until a later try).
 */
function truncate(id) {
  let done = false;
  try {
    db.pragma('busy_timeout = ' + workerData.truncateBusyTimeoutMs);
    done = db.pragma('wal_checkpoint(TRUNCATE)')[0].busy === 0;
  } catch (error) {
    report(error);
  } finally {
    try {
      db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
    } catch (error) {
      report(error);
    }
  }
  parentPort.postMessage({ kind: 'truncated', id, done });
}

parentPort.on('message', (message) => {
  if (message === 'stop') stop();
  else if (message && message.kind === 'truncate') {
    if (stopped || !db) parentPort.postMessage({ kind: 'truncated', id: message.id, done: false });
    else truncate(message.id);
  }
});

try {
  // The main connection created the file and put it in WAL mode (a persistent setting); this
  // connection only checkpoints, so it sets nothing else.
  db = new Database(workerData.file, { fileMustExist: true, timeout: workerData.busyTimeoutMs });
  timer = setTimeout(checkpoint, delayMs);
} catch (error) {
  report(error);
  stop();
}
`;
