import type { Statement } from 'better-sqlite3';
import type { SqliteHandle } from './raw-handles.js';

/**
 * Writes of this thread announced to another thread that shares the SQLite file (the log cleanup's worker).
 *
 * better-sqlite3 is synchronous: a write of the gateway that finds SQLite's write lock taken by another
 * connection sleeps in SQLite's busy handler (1, 2, 5, 10 ms ... between tries) with the event loop stopped.
 * A worker that holds the lock for a long delete cannot see that sleeper. So every statement that may take the
 * write lock counts itself in shared memory for as long as it runs (WRITE_INTENT.writes): the worker reads it
 * between two small pieces of its transaction and commits at once when a write waits, and starts no
 * transaction while one runs. While the worker holds the lock it says so (WRITE_INTENT.workerHolds), and a write
 * of this thread first waits for that flag to drop (Atomics.wait, woken by the worker's commit) instead of
 * meeting the lock and sleeping a whole millisecond or more in the busy handler. Shared memory, not messages:
 * it is seen while this thread is blocked.
 */
export const WRITE_INTENT = {
  /** Statements of the main thread that may take the write lock, running now. */
  writes: 0,
  /** 1 while the worker holds the write lock; it notifies this slot when it lets go. */
  workerHolds: 1,
} as const;
/** The longest a write waits on the worker's flag before it goes to SQLite's lock and busy handler anyway. */
const HOLDER_WAIT_MS = 50;

const intents = new WeakMap<object, Int32Array>();
const WRAPPED = Symbol('gw.writeIntent');

type Runner = (this: Statement, ...args: unknown[]) => unknown;

/**
 * Makes the writes of `db` counted (see above). Read-only statements are not: in WAL mode they never wait for
 * the write lock. `BEGIN IMMEDIATE` reports itself as not read-only, so it is counted, as are `exec()` calls.
 */
export function announceSqliteWrites(db: SqliteHandle): void {
  if (intents.has(db)) return;
  const counter = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  intents.set(db, counter);
  // Every statement of a connection, its transaction helper's BEGIN/COMMIT too, runs through the one native
  // prototype, so it is wrapped once per thread; statements of connections not announced pass straight through.
  const prototype = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string | symbol, unknown>;
  if (!prototype[WRAPPED]) {
    prototype[WRAPPED] = true;
    for (const method of ['run', 'get', 'all'] as const) prototype[method] = counted(prototype[method] as Runner);
  }
  const exec = db.exec.bind(db);
  db.exec = (sql: string) => {
    announce(counter);
    try {
      return exec(sql);
    } finally {
      Atomics.sub(counter, WRITE_INTENT.writes, 1);
    }
  };
}

function counted(original: Runner): Runner {
  return function (this: Statement, ...args: unknown[]) {
    const counter = this.readonly ? undefined : intents.get(this.database);
    if (!counter) return original.apply(this, args);
    announce(counter);
    try {
      return original.apply(this, args);
    } finally {
      Atomics.sub(counter, WRITE_INTENT.writes, 1);
    }
  };
}

/** Counts a write in, then waits (briefly) for the worker to let the lock go if it holds it. */
function announce(counter: Int32Array): void {
  Atomics.add(counter, WRITE_INTENT.writes, 1);
  if (Atomics.load(counter, WRITE_INTENT.workerHolds) === 1) Atomics.wait(counter, WRITE_INTENT.workerHolds, 1, HOLDER_WAIT_MS);
}

/**
 * The shared memory of `db`'s announced writes (slots: WRITE_INTENT) to hand to a worker thread; undefined when its writes are
 * not announced (a connection not opened through dataSourceOptions).
 */
export function sqliteWriteIntentOf(db: SqliteHandle): Int32Array | undefined {
  return intents.get(db);
}
