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
export function serializeSqliteTransactions(dataSource: DataSource): void {
  if (dataSource.options.type !== 'better-sqlite3') return;
  const manager = dataSource.manager as EntityManager & { __serialized?: boolean };
  if (manager.__serialized) return;
  manager.__serialized = true;

  const inside = new AsyncLocalStorage<true>();
  const original = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  let tail: Promise<unknown> = Promise.resolve();

  (manager as { transaction: unknown }).transaction = (...args: unknown[]) => {
    if (inside.getStore()) return original(...args);
    const next = tail.then(() => inside.run(true, () => original(...args)));
    tail = next.catch(() => undefined);
    return next;
  };
}
