import type { DataSource } from 'typeorm';
import { type SqliteHandle, sqliteHandleOf } from './raw-handles.js';

/**
 * Slots of the shared memory between the main connection's writes and a worker thread that writes the same
 * SQLite file (the log cleanup). Shared memory, not messages: the worker reads it between two statements of its
 * transaction, and the main thread's wait ends the moment the worker commits.
 */
export const WRITE_GATE = {
  /** 1 while the worker holds SQLite's write lock; it notifies this slot when it lets go. */
  workerHolds: 0,
  /** Main-thread writes waiting for the lock or running now: the worker commits early and starts none. */
  mainWrites: 1,
} as const;

/** Past this a main-thread write goes to SQLite's lock (and its busy handler) anyway: a stuck worker never stalls it. */
const MAX_GATE_WAIT_MS = 100;

/** Node has had Atomics.waitAsync since 16; TypeScript's lib declares it from ES2024 on. */
type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/**
 * Lets the main connection's writes wait for a worker's write lock without SQLite's busy handler. That handler
 * sleeps 1, 2, 5, 10 ms … between tries, synchronously: every request stands still, and a lock let go after 3.1
 * ms costs 8. Here a write first says it is coming (the worker commits at its next piece and starts nothing
 * new), then, if the worker holds the lock, awaits its commit off the event loop.
 */
export class SqliteWriteGate {
  readonly shared = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));

  /**
   * Runs `write` once no worker holds the write lock; the worker starts no transaction until it has settled.
   * Awaits only when one holds it (nearly never without a cleanup running): otherwise `write` starts at once.
   */
  async run<T>(write: () => T | Promise<T>): Promise<T> {
    Atomics.add(this.shared, WRITE_GATE.mainWrites, 1);
    try {
      if (Atomics.load(this.shared, WRITE_GATE.workerHolds) === 1) {
        const wait = waitAsync(this.shared, WRITE_GATE.workerHolds, 1, MAX_GATE_WAIT_MS);
        if (wait.async) await wait.value;
      }
      return await write();
    } finally {
      Atomics.sub(this.shared, WRITE_GATE.mainWrites, 1);
    }
  }

  /** Whether a worker holds the write lock now (a write would wait). */
  get workerHolds(): boolean {
    return Atomics.load(this.shared, WRITE_GATE.workerHolds) === 1;
  }
}

const gates = new WeakMap<SqliteHandle, SqliteWriteGate>();

/** The one gate of a main SQLite connection, shared by its write paths and the workers writing its file. */
export function sqliteWriteGateOf(db: SqliteHandle): SqliteWriteGate {
  let gate = gates.get(db);
  if (!gate) {
    gate = new SqliteWriteGate();
    gates.set(db, gate);
  }
  return gate;
}

/** Statements that never take the write lock (in WAL mode readers do not wait for it). */
const READ_ONLY = /^\s*(SELECT|EXPLAIN)\b/i;

/**
 * Puts the statements of TypeORM's SQLite connection that take the write lock (a BEGIN, or a write outside a
 * transaction; inside one the lock is already this connection's) through the gate. better-sqlite3's query
 * runner is one per data source, so this covers every repository, query builder and transaction.
 */
export function gateSqliteWrites(dataSource: DataSource): void {
  const db = sqliteHandleOf(dataSource);
  if (!db || db.memory) return;
  const gate = sqliteWriteGateOf(db);
  const runner = dataSource.driver.createQueryRunner('master') as unknown as GatedRunner;
  if (runner.writesGated) return;
  runner.writesGated = true;
  // The class's method, looked up at each call: a wrapper put on the prototype later (a test capturing the
  // statements) still sees every one.
  const prototype = Object.getPrototypeOf(runner) as GatedRunner;
  const query = (sql: string, ...rest: unknown[]) => prototype.query.call(runner, sql, ...rest);
  runner.query = (sql: string, ...rest: unknown[]) =>
    /^\s*BEGIN\b/i.test(sql) || (!db.inTransaction && !READ_ONLY.test(sql)) ? gate.run(() => query(sql, ...rest)) : query(sql, ...rest);
}

interface GatedRunner {
  writesGated?: boolean;
  query(sql: string, ...rest: unknown[]): Promise<unknown>;
}
