import { Inject, Injectable } from '@nestjs/common';
import {
  LOG_DATA_SOURCE,
  runOutsideTransactions,
  SqliteCheckpointService,
  sqliteHandleOf,
  sqliteWriteGateOf,
  withLargeSqliteCache,
} from '@gw/database';
import type { DataSource } from 'typeorm';

/**
 * The statements of a batched log cleanup. Each reads or deletes a bounded number of rows by key, so no
 * statement holds locks on (or, on SQLite, blocks the event loop for) a huge range.
 */
@Injectable()
export class LogPurgeRepository {
  constructor(
    @Inject(LOG_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly checkpoints: SqliteCheckpointService,
  ) {}

  get isSqlite(): boolean {
    return this.dataSource.options.type === 'better-sqlite3';
  }

  /** The ids of the oldest rows created before `before`, read from the created_at index (no scan of the table). */
  async oldestIds(before: number, limit: number): Promise<number[]> {
    const rows: Array<{ id: unknown }> = await this.dataSource.query(
      `SELECT id FROM logs WHERE created_at < ${this.param(1)} ORDER BY created_at LIMIT ${Math.floor(limit)}`,
      [before],
    );
    return rows.map((row) => Number(row.id));
  }

  /**
   * Deletes those rows. Old rows were written in id order, so a batch is usually one contiguous id range,
   * deleted as a primary-key range (the created_at guard keeps any newer row inside it); scattered ids go
   * by list. Returns the rows deleted.
   */
  async deleteIds(ids: number[], before: number): Promise<number> {
    if (ids.length === 0) return 0;
    let low = ids[0]!;
    let high = ids[0]!;
    for (const id of ids) {
      if (id < low) low = id;
      if (id > high) high = id;
    }
    const contiguous = high - low < 2 * ids.length;
    const [sql, params] = contiguous
      ? [`DELETE FROM logs WHERE id >= ${this.param(1)} AND id <= ${this.param(2)} AND created_at < ${this.param(3)}`, [low, high, before]]
      : [`DELETE FROM logs WHERE id IN (${ids.map((_, i) => this.param(i + 1)).join(', ')})`, ids];
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(sql, params, true);
      return result.affected ?? ids.length;
    } finally {
      await runner.release();
    }
  }

  /**
   * The SQLite file holding the logs, for a cleanup on a connection of its own (SqlitePurgeWorker), with the
   * shared memory of this connection's write gate, through which the cleanup gives the write lock up to the
   * gateway's writes; undefined on another database or an in-memory one, which only this connection can reach.
   */
  sqliteFile(): { file: string; gate: Int32Array } | undefined {
    const db = sqliteHandleOf(this.dataSource);
    return db && !db.memory && db.name ? { file: db.name, gate: sqliteWriteGateOf(db).shared } : undefined;
  }

  /** Runs `work` with a larger SQLite page cache (see withLargeSqliteCache). */
  withLargeSqliteCache<T>(work: () => Promise<T>): Promise<T> {
    return withLargeSqliteCache(this.dataSource, work);
  }

  /** SQLite's free pages after a delete; 0 elsewhere. */
  async sqliteFreePages(): Promise<number> {
    if (!this.isSqlite) return 0;
    const [row] = await this.dataSource.query('PRAGMA freelist_count');
    return Number(row?.freelist_count ?? 0);
  }

  /** Whether the SQLite file can give pages back a few at a time (auto_vacuum = INCREMENTAL). */
  async sqliteIncrementalVacuum(): Promise<boolean> {
    if (!this.isSqlite) return false;
    const [row] = await this.dataSource.query('PRAGMA auto_vacuum');
    return Number(row?.auto_vacuum) === 2;
  }

  /**
   * Returns up to `pages` free pages to the file system. SQLite frees one page per step of this statement,
   * and a driver's run() (TypeORM's query() here) steps once: measured, `incremental_vacuum(1024)` freed a
   * single page, so a cleanup of 333 k rows left 81 MB free in the file. exec() steps it to the end. On the
   * raw connection, so it runs outside any open TypeORM transaction (it would otherwise join it).
   */
  async sqliteVacuumPages(pages: number): Promise<void> {
    const db = sqliteHandleOf(this.dataSource);
    if (!db) return;
    await runOutsideTransactions(this.dataSource, db, () => db.exec(`PRAGMA incremental_vacuum(${Math.floor(pages)})`));
  }

  /** Cuts the SQLite WAL file to zero bytes (off the event loop): false when busy, undefined when there is no WAL. */
  sqliteTruncateWal(): Promise<boolean> | undefined {
    return this.checkpoints.truncateWal(this.dataSource);
  }

  private param(n: number): string {
    return this.dataSource.options.type === 'postgres' ? `$${n}` : '?';
  }
}
