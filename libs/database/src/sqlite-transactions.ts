import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * TypeORM's SQLite driver shares ONE query runner (one connection), so two `transaction()` calls in flight
 * at once nest as savepoints of each other: a rollback of one would undo the other's committed work (a
 * credited top-up, a charged request). On SQLite every transaction of the process is therefore queued:
 * the embedded database has a single writer anyway, and another process on the same file meets SQLite's
 * own lock and waits on the busy timeout. A transaction opened inside a queued one (same async context)
 * runs at once as a savepoint, so nesting never deadlocks. MySQL and PostgreSQL give each transaction its
 * own pooled connection and are left alone.
 */
const queues = new WeakMap<DataSource, { tail: Promise<unknown> }>();

export function serializeSqliteTransactions(dataSource: DataSource): void {
  if (dataSource.options.type !== 'better-sqlite3') return;
  const manager = dataSource.manager as EntityManager & { __serialized?: boolean };
  if (manager.__serialized) return;
  manager.__serialized = true;
  const queue = { tail: Promise.resolve() as Promise<unknown> };
  queues.set(dataSource, queue);

  const inside = new AsyncLocalStorage<true>();
  const original = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  // An enabled AsyncLocalStorage makes Node 20 run a hook on every promise of the process (measured: 6 % of
  // all allocations on the relay's hot path). It is only needed while a transaction is queued or running,
  // so it is switched off whenever the queue is empty; run() switches it back on.
  let queued = 0;
  const settled = () => {
    if (--queued === 0) inside.disable();
  };

  (manager as { transaction: unknown }).transaction = (...args: unknown[]) => {
    if (inside.getStore()) return original(...args);
    queued++;
    const next = queue.tail.then(() => inside.run(true, () => original(...args)));
    next.then(settled, settled);
    queue.tail = next.catch(() => undefined);
    return next;
  };
}

interface RawSqlite {
  /** better-sqlite3: true while the connection is inside BEGIN … COMMIT. */
  readonly inTransaction: boolean;
}

/**
 * Runs `work` in the same turn as the check that no transaction is open (so none can begin in between),
 * polling once per event-loop turn until then.
 */
function runWhenIdle<T>(db: RawSqlite, work: () => T): Promise<T> {
  if (db.inTransaction) return new Promise<void>((resolve) => setImmediate(resolve)).then(() => runWhenIdle(db, work));
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Runs `work`, a synchronous write on the raw better-sqlite3 connection (BatchedTransactions' batches:
 * the balance ledger's movements and the log's batch inserts), outside any TypeORM transaction. Run while one is open
 * (it spans awaits), the write would join it as a savepoint and vanish with its rollback: a charge or a
 * log row lost. So it runs at once when the connection is idle, which is nearly always. Otherwise it takes
 * its place in the transaction queue, so queued transactions cannot start in front of it, and waits there
 * for the open one to end: a queued one, or one TypeORM opened itself without the queue (every save()
 * does), which ends on its own, so the wait is a poll, never a wait on the queue it holds.
 */
export function runOutsideTransactions<T>(dataSource: DataSource, db: RawSqlite, work: () => T): Promise<T> {
  const queue = queues.get(dataSource);
  if (!db.inTransaction || !queue) return runWhenIdle(db, work);
  const next = queue.tail.then(() => runWhenIdle(db, work));
  queue.tail = next.catch(() => undefined);
  return next;
}
