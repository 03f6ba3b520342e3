import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteWriteGateOf } from '@gw/database';
import { restAfterBatch } from './batch-sizer.js';
import { SqlitePurgeError, SqlitePurgeWorker } from './sqlite-purge-worker.js';

/** A WAL file with `old` rows created at 1..old (ids in time order) and `recent` rows at 10_000_000 and after. */
function logFile(dir: string, old: number, recent: number): { file: string; db: Database.Database } {
  const file = join(dir, 'logs.db');
  const db = new Database(file);
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE logs (id INTEGER PRIMARY KEY AUTOINCREMENT, created_at INTEGER NOT NULL, user_id INTEGER, content TEXT)');
  db.exec('CREATE INDEX idx_logs_created_at ON logs (created_at)');
  db.exec('CREATE INDEX idx_logs_user_id_created_at ON logs (user_id, created_at)');
  const fill = db.prepare(
    `WITH RECURSIVE seq(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM seq WHERE v < ?)
     INSERT INTO logs (created_at, user_id, content) SELECT ? + v, v % 97, hex(randomblob(100)) FROM seq`,
  );
  fill.run(old, 0);
  fill.run(recent, 10_000_000);
  return { file, db };
}

const gateOf = (db: Database.Database | undefined) => sqliteWriteGateOf(db!).shared;

describe('SqlitePurgeWorker', () => {
  let dir: string | undefined;
  let db: Database.Database | undefined;

  afterEach(() => {
    db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    db = dir = undefined;
  });

  it('deletes every older row in many batches, reports its progress, then hands the pages back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-purge-worker-'));
    ({ db } = logFile(dir, 60_000, 500));
    const seen: number[] = [];
    const worker = new SqlitePurgeWorker(join(dir, 'logs.db'), 5_000_000, gateOf(db), (n) => seen.push(n), { maxRows: 200 });
    expect(await worker.finished).toBe(60_000);
    expect(seen.length).toBeGreaterThan(20);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(60_000);
    expect(db.prepare('SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM logs').get()).toEqual({ n: 500, oldest: 10_000_001 });
    expect(db.pragma('freelist_count', { simple: true })).toBe(0);
  });

  it('finds old rows whose ids are out of time order (a late import) and keeps newer rows inside their id range', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-purge-worker-'));
    ({ db } = logFile(dir, 1_000, 1_000));
    // Old rows with the newest ids, and new rows amid the old ids.
    db.exec('INSERT INTO logs (created_at, user_id) SELECT created_at - 9_000_000, 1 FROM logs WHERE created_at > 10_000_000');
    db.exec('UPDATE logs SET created_at = 20_000_000 WHERE id % 10 = 0 AND id <= 1_000');
    const worker = new SqlitePurgeWorker(join(dir, 'logs.db'), 5_000_000, gateOf(db), () => {}, { minRows: 50, maxRows: 50 });
    expect(await worker.finished).toBe(900 + 1_000);
    expect(db.prepare('SELECT COUNT(*) AS n FROM logs WHERE created_at < 5_000_000').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM logs').get()).toEqual({ n: 100 + 1_000 });
  });

  it('lets the main connection commit between its batches, each waiting at most a few milliseconds', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-purge-worker-'));
    ({ db } = logFile(dir, 200_000, 10));
    db.pragma('busy_timeout = 30000');
    const insert = db.prepare('INSERT INTO logs (created_at, user_id) VALUES (20_000_000, 1)');
    const gate = sqliteWriteGateOf(db);
    let progress = 0;
    const worker = new SqlitePurgeWorker(join(dir, 'logs.db'), 5_000_000, gate.shared, (n) => (progress = n));
    let done = false;
    const finished = worker.finished.finally(() => (done = true));
    const waits: number[] = [];
    while (!done) {
      const started = performance.now();
      await gate.run(() => db!.transaction(() => insert.run()).immediate());
      if (progress > 0) waits.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(await finished).toBe(200_000);
    expect(waits.length).toBeGreaterThan(10);
    waits.sort((a, b) => a - b);
    // The worker commits after the piece it is deleting (about 1 ms) when a write is announced.
    expect(waits[Math.floor(waits.length * 0.95)]).toBeLessThan(30);
  });

  it('never lets a write through its gate meet the lock: the worker gives way and holds none while one runs', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-purge-worker-'));
    ({ db } = logFile(dir, 100_000, 10));
    // No busy handler: a write that finds the worker holding the lock fails at once instead of sleeping in it.
    db.pragma('busy_timeout = 0');
    const insert = db.prepare('INSERT INTO logs (created_at, user_id) VALUES (20_000_000, 1)');
    const gate = sqliteWriteGateOf(db);
    let progress = 0;
    const worker = new SqlitePurgeWorker(join(dir, 'logs.db'), 5_000_000, gate.shared, (n) => (progress = n), { restRatio: 0.25 });
    let done = false;
    const finished = worker.finished.finally(() => (done = true));
    let writes = 0;
    let busy = 0;
    let waited = 0;
    while (!done) {
      if (progress > 0 && gate.workerHolds) waited++;
      try {
        await gate.run(() => db!.transaction(() => insert.run()).immediate());
        if (progress > 0) writes++;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
        busy++;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await finished).toBe(100_000);
    // The gate was met raised many times, and it let the write in without the busy handler: only a write that
    // came in the instant the worker took the lock (before it raised the gate) meets it. Measured: 18 in 68,530
    // writes on a quiet machine, 248 in ~19,800 in CI with every core busy (the worker thread descheduled inside
    // that instant), against 8,600 busy for 5,084 writes when the writes bypass the gate.
    expect(waited).toBeGreaterThan(10);
    expect(writes).toBeGreaterThan(100);
    expect(busy).toBeLessThanOrEqual(Math.max(2, writes / 10));
  });

  it('stops after the current batch when asked, the rows deleted until then counted', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-purge-worker-'));
    ({ db } = logFile(dir, 50_000, 10));
    let stopped = false;
    const worker = new SqlitePurgeWorker(
      join(dir, 'logs.db'),
      5_000_000,
      gateOf(db),
      () => {
        if (!stopped) worker.stop();
        stopped = true;
      },
      { minRows: 100, maxRows: 100 },
    );
    const deleted = await worker.finished;
    expect(deleted).toBeGreaterThan(0);
    expect(deleted).toBeLessThan(50_000);
    expect(db.prepare('SELECT COUNT(*) AS n FROM logs').get()).toEqual({ n: 50_010 - deleted });
  });

  it('waits out a gateway transaction that holds the write lock past its busy timeout', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-purge-worker-'));
    ({ db } = logFile(dir, 1_000, 10));
    db.prepare('BEGIN IMMEDIATE').run();
    const worker = new SqlitePurgeWorker(join(dir, 'logs.db'), 5_000_000, gateOf(db), () => {}, { busyTimeoutMs: 50 });
    let done = false;
    const finished = worker.finished.finally(() => (done = true));
    // Past several busy timeouts of the worker, the lock is let go.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(done).toBe(false);
    db.prepare('COMMIT').run();
    expect(await finished).toBe(1_000);
  });

  it('fails with the rows it had deleted when the file has no logs table', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-purge-worker-'));
    db = new Database(join(dir, 'logs.db'));
    db.exec('CREATE TABLE other (id INTEGER)');
    const worker = new SqlitePurgeWorker(join(dir, 'logs.db'), 5_000_000, gateOf(db), () => {});
    const error = await worker.finished.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SqlitePurgeError);
    expect((error as SqlitePurgeError).message).toMatch(/no such table: logs/);
    expect((error as SqlitePurgeError).deleted).toBe(0);
  });
});

describe('restAfterBatch', () => {
  it('rests the given multiple of the time the lock was held, and never under 4 ms', () => {
    expect(restAfterBatch(0.3, 1)).toBe(4);
    expect(restAfterBatch(7.2, 1)).toBe(8);
    expect(restAfterBatch(8, 3)).toBe(24);
  });
});
