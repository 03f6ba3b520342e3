import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { announceSqliteWrites, sqliteWriteIntentOf } from './sqlite-write-intent.js';

describe('announceSqliteWrites', () => {
  const opened: Database.Database[] = [];
  afterEach(() => {
    for (const db of opened.splice(0)) db.close();
  });

  /** A connection whose SQL function seen() reads the counter while a statement runs. */
  function connection(announced: boolean): { db: Database.Database; seen: number[] } {
    const db = new Database(':memory:');
    opened.push(db);
    if (announced) announceSqliteWrites(db);
    const seen: number[] = [];
    const counter = sqliteWriteIntentOf(db);
    db.function('seen', () => {
      seen.push(counter ? Atomics.load(counter, 0) : -1);
      return 1;
    });
    db.exec('CREATE TABLE t (v INTEGER)');
    return { db, seen };
  }

  it('counts a statement that may take the write lock for as long as it runs, and not after', () => {
    const { db, seen } = connection(true);
    db.prepare('INSERT INTO t (v) VALUES (seen())').run();
    db.prepare('INSERT INTO t (v) VALUES (seen()) RETURNING v').get();
    db.prepare('UPDATE t SET v = seen() RETURNING v').all();
    db.exec('INSERT INTO t (v) VALUES (seen())');
    // The UPDATE calls seen() once for each of the two rows.
    expect(seen).toEqual([1, 1, 1, 1, 1]);
    expect(Atomics.load(sqliteWriteIntentOf(db)!, 0)).toBe(0);
  });

  it('does not count reads, which never wait for the write lock in WAL mode', () => {
    const { db, seen } = connection(true);
    db.prepare('SELECT seen()').get();
    db.prepare('SELECT seen() FROM (SELECT 1)').all();
    expect(seen).toEqual([0, 0]);
  });

  it('counts BEGIN IMMEDIATE, also from the driver transaction helper, and uncounts a statement that failed', () => {
    const { db } = connection(true);
    const counter = sqliteWriteIntentOf(db)!;
    const begin = db.prepare('BEGIN IMMEDIATE');
    expect(begin.readonly).toBe(false);
    const added: number[] = [];
    const add = Atomics.add;
    // The helper's BEGIN and COMMIT are prepared inside the driver: counted all the same.
    Atomics.add = ((array: Int32Array, index: number, value: number) => {
      if (array === counter) added.push(value);
      return add(array, index, value);
    }) as typeof Atomics.add;
    try {
      db.transaction(() => {}).immediate();
    } finally {
      Atomics.add = add;
    }
    expect(added.length).toBeGreaterThan(0);
    expect(() => db.prepare('INSERT INTO missing (v) VALUES (1)')).toThrow();
    expect(() => db.prepare('INSERT INTO t (v) VALUES (?)').run({})).toThrow();
    expect(Atomics.load(counter, 0)).toBe(0);
  });

  it('leaves connections that were not announced alone', () => {
    connection(true);
    const { db, seen } = connection(false);
    db.prepare('INSERT INTO t (v) VALUES (seen())').run();
    expect(sqliteWriteIntentOf(db)).toBeUndefined();
    expect(seen).toEqual([-1]);
  });
});
