import { describe, expect, it, vi } from 'vitest';
import { LogBatcher, type LogBatcherOptions } from './log-batcher.js';

function make(overrides: Partial<LogBatcherOptions<number>> = {}) {
  const written: number[][] = [];
  const losses: [number, string][] = [];
  const batcher = new LogBatcher<number>({
    write: async (rows) => void written.push([...rows]),
    maxRows: 3,
    maxPending: 10,
    onLoss: (count, reason) => losses.push([count, reason]),
    ...overrides,
  });
  return { batcher, written, losses };
}

describe('LogBatcher', () => {
  it('holds rows until flushed, then writes them in batches of maxRows', async () => {
    const { batcher, written } = make({ maxRows: 100 });
    for (let i = 1; i <= 5; i++) batcher.push(i);
    expect(written).toEqual([]);
    await batcher.flush();
    expect(written).toEqual([[1, 2, 3, 4, 5]]);
    expect(batcher.size).toBe(0);
  });

  it('starts a flush on its own once maxRows rows wait', async () => {
    const { batcher, written } = make();
    for (const n of [1, 2, 3, 4]) batcher.push(n);
    await vi.waitFor(() => expect(written[0]).toEqual([1, 2, 3]));
    await batcher.flush();
    expect(written.flat()).toEqual([1, 2, 3, 4]);
  });

  it('retries a failed write once and succeeds', async () => {
    let calls = 0;
    const written: number[] = [];
    const { batcher, losses } = make({
      write: async (rows) => {
        if (++calls === 1) throw new Error('deadlock');
        written.push(...rows);
      },
    });
    batcher.push(7);
    await batcher.flush();
    expect(calls).toBe(2);
    expect(written).toEqual([7]);
    expect(losses).toEqual([]);
  });

  it('reports a row lost after its retry fails, without throwing, and keeps going', async () => {
    let calls = 0;
    const written: number[] = [];
    const { batcher, losses } = make({
      write: async (rows) => {
        if (++calls <= 2) throw new Error('db down');
        written.push(...rows);
      },
    });
    batcher.push(1);
    await expect(batcher.flush()).resolves.toBe(true);
    expect(losses).toEqual([[1, 'db down']]);
    batcher.push(2);
    await batcher.flush();
    expect(written).toEqual([2]);
  });

  it('a batch that fails twice is written row by row, so only the bad row is lost', async () => {
    const written: number[] = [];
    const { batcher, losses } = make({
      write: async (rows) => {
        if (rows.includes(13)) throw new Error('bad row');
        written.push(...rows);
      },
    });
    for (const n of [12, 13, 14]) batcher.push(n);
    await batcher.flush();
    expect(written).toEqual([12, 14]);
    expect(losses).toEqual([[1, 'bad row']]);
  });

  it('waits for a flush already running, so flush() covers every row pushed before it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const written: number[] = [];
    const { batcher } = make({
      maxRows: 100,
      write: async (rows) => {
        await gate;
        written.push(...rows);
      },
    });
    batcher.push(1);
    const first = batcher.flush();
    batcher.push(2);
    const second = batcher.flush();
    release();
    await second;
    expect(written).toEqual([1, 2]);
    await first;
  });

  it('drops rows beyond maxPending instead of growing without bound', async () => {
    const { batcher, losses } = make({ maxRows: 100, maxPending: 2 });
    for (const n of [1, 2, 3]) batcher.push(n);
    expect(batcher.size).toBe(2);
    expect(losses).toEqual([[1, 'buffer full']]);
  });

  it('does not write again what a failed write committed (its answer was lost)', async () => {
    const table: number[] = [];
    let calls = 0;
    let checks = 0;
    const { batcher, losses } = make({
      maxRows: 10,
      write: async (rows) => {
        calls++;
        table.push(...rows);
        if (calls === 1) throw new Error('Connection lost: The server closed the connection.');
      },
      committed: async (rows) => {
        // The database is still away for the first check: the rows wait for the next flush.
        if (++checks === 1) throw new Error('connect ECONNREFUSED');
        return rows.every((row) => table.includes(row));
      },
    });
    for (const n of [1, 2, 3]) batcher.push(n);
    expect(await batcher.flush()).toBe(false);
    expect(batcher.size).toBe(3);
    expect(await batcher.flush()).toBe(true);
    expect(table).toEqual([1, 2, 3]);
    expect(calls).toBe(1);
    expect(losses).toEqual([]);
  });

  it('writes row by row only what the database refused, and keeps the rest waiting when it stops answering midway', async () => {
    let down = false;
    const table: number[] = [];
    const { batcher, losses } = make({
      maxRows: 10,
      write: async (rows) => {
        if (rows.includes(2)) throw Object.assign(new Error('Data too long'), { bad: true });
        if (down) throw new Error('Connection lost');
        table.push(...rows);
        if (rows.includes(1)) down = true;
      },
      committed: async (rows) => {
        if (down) throw new Error('connect ECONNREFUSED');
        return rows.every((row) => table.includes(row));
      },
      refused: (error) => (error as { bad?: boolean }).bad === true,
    });
    for (const n of [1, 2, 3, 4]) batcher.push(n);
    expect(await batcher.flush()).toBe(false);
    expect(table).toEqual([1]);
    expect(losses).toEqual([[1, 'Data too long']]);
    down = false;
    expect(await batcher.flush()).toBe(true);
    expect(table).toEqual([1, 3, 4]);
  });

  it('writes again a failed write that did not commit', async () => {
    const table: number[] = [];
    let calls = 0;
    const { batcher } = make({
      write: async (rows) => {
        if (++calls === 1) throw new Error('Connection lost');
        table.push(...rows);
      },
      committed: async (rows) => rows.every((row) => table.includes(row)),
    });
    for (const n of [1, 2]) batcher.push(n);
    await batcher.flush();
    expect(table).toEqual([1, 2]);
  });

  it('keeps rows, in order, while the database does not answer, and writes them at a later flush', async () => {
    let down = true;
    const table: number[] = [];
    const { batcher, losses } = make({
      maxRows: 2,
      write: async (rows) => {
        if (down) throw new Error('connect ECONNREFUSED');
        table.push(...rows);
      },
      committed: async (rows) => {
        if (down) throw new Error('connect ECONNREFUSED');
        return rows.every((row) => table.includes(row));
      },
    });
    for (const n of [1, 2, 3]) batcher.push(n);
    expect(await batcher.flush()).toBe(false);
    expect(batcher.size).toBe(3);
    batcher.push(4);
    down = false;
    expect(await batcher.flush()).toBe(true);
    expect(table).toEqual([1, 2, 3, 4]);
    expect(losses).toEqual([]);
  });
});
