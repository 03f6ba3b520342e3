import { describe, expect, it } from 'vitest';
import { FREE_SLOT, MysqlLedger } from './mysql-balance.js';

interface Sent {
  on: 'pool' | 'connection';
  sql: string;
  values?: unknown[];
}

type Callback = (error: Error | null, result: unknown) => void;

/**
 * A mysql2-like pool that records every statement. `short` makes the conditional debits match nothing (a
 * balance too low); `slotGone` makes only the slot UPDATE match nothing.
 */
function recordingPool(state: { short?: boolean; slotGone?: boolean; slotDeadlocks?: number } = {}) {
  const sent: Sent[] = [];
  const answer = (sql: string): unknown => {
    if (sql.startsWith('SELECT quota')) return [{ quota: 0 }];
    if (sql.startsWith('UPDATE')) {
      const slotUpdate = sql.includes(`r.charged = ${FREE_SLOT}`);
      const matched = !state.short && !(slotUpdate && state.slotGone);
      return { affectedRows: matched ? 1 : 0 };
    }
    return { affectedRows: 1 };
  };
  const pool = {
    execute: (sql: string, values: unknown[], callback: Callback) => {
      sent.push({ on: 'pool', sql, values });
      if (state.slotDeadlocks && sql.includes(`r.charged = ${FREE_SLOT}`)) {
        state.slotDeadlocks--;
        queueMicrotask(() => callback(new Error('Deadlock found when trying to get lock; try restarting transaction'), undefined));
        return;
      }
      queueMicrotask(() => callback(null, answer(sql)));
    },
    getConnection: (callback: (error: Error | null, connection: never) => void) => {
      const connection = {
        execute: (sql: string, values: unknown[], cb: Callback) => {
          sent.push({ on: 'connection', sql, values });
          queueMicrotask(() => cb(null, answer(sql)));
        },
        query: (sql: string, cb: Callback) => {
          sent.push({ on: 'connection', sql });
          queueMicrotask(() => cb(null, answer(sql)));
        },
        release: () => undefined,
      };
      queueMicrotask(() => callback(null, connection as never));
    },
  };
  return { pool, sent };
}

const isRefill = (s: Sent) => s.sql.startsWith('INSERT INTO quota_reservations') && s.sql.includes(`${FREE_SLOT}, ?, ?)`);
const isSlotReserve = (s: Sent) => s.sql.startsWith('UPDATE') && s.sql.includes(`r.charged = ${FREE_SLOT}`);
const settled = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('MysqlLedger reservation slots', () => {
  it('reserves with the plain transaction until slots exist, then in one autocommitted statement', async () => {
    const { pool, sent } = recordingPool();
    const ledger = new MysqlLedger(pool);
    expect(await ledger.reserve(1, 2, 100, 'req-1', 'owner-a')).toBe('ok');
    expect(sent.filter((s) => s.on === 'connection').map((s) => s.sql.split(' ')[0])).toEqual(['START', 'UPDATE', 'INSERT', 'COMMIT']);
    const refill = sent.find(isRefill)!;
    expect(refill.values).toHaveLength(64 * 3);
    expect(refill.values![1]).toBe('owner-a');
    await settled();

    sent.length = 0;
    expect(await ledger.reserve(1, 2, 100, 'req-2', 'owner-a')).toBe('ok');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.on).toBe('pool');
    expect(isSlotReserve(sent[0]!)).toBe(true);
    // The slot becomes the request's row: its id is the request id, the slot id is only matched.
    expect(sent[0]!.values).toEqual([
      100,
      100,
      100,
      'req-2',
      1,
      2,
      100,
      expect.any(Number),
      1,
      2,
      expect.stringMatching(/^slot:/),
      100,
      100,
    ]);
  });

  it('gives a slot back when the reserve is refused, and answers which balance was short', async () => {
    const state = { short: false };
    const { pool, sent } = recordingPool(state);
    const ledger = new MysqlLedger(pool);
    await ledger.reserve(1, 2, 100, 'req-1', 'owner-a');
    await settled();
    state.short = true;
    sent.length = 0;
    expect(await ledger.reserve(1, 2, 100, 'req-2', 'owner-a')).toBe('user_quota');
    const tried = sent.find(isSlotReserve)!.values![10];
    // The plain path decided (and refused) before the answer.
    expect(sent.some((s) => s.sql.startsWith('UPDATE users u, tokens t SET') && !isSlotReserve(s))).toBe(true);
    state.short = false;
    sent.length = 0;
    await ledger.reserve(1, 2, 100, 'req-3', 'owner-a');
    expect(sent.find(isSlotReserve)!.values![10]).toBe(tried);
  });

  it('does not reuse a slot that matched nothing while the plain path reserved', async () => {
    const state = { slotGone: false };
    const { pool, sent } = recordingPool(state);
    const ledger = new MysqlLedger(pool);
    await ledger.reserve(1, 0, 10, 'req-1', 'owner-a');
    await settled();
    state.slotGone = true;
    sent.length = 0;
    expect(await ledger.reserve(1, 0, 10, 'req-2', 'owner-a')).toBe('ok');
    const missed = sent.find(isSlotReserve)!.values![6];
    expect(sent.some((s) => s.sql.startsWith('INSERT INTO quota_reservations') && s.values?.[0] === 'req-2')).toBe(true);
    state.slotGone = false;
    sent.length = 0;
    await ledger.reserve(1, 0, 10, 'req-3', 'owner-a');
    expect(sent.find(isSlotReserve)!.values![6]).not.toBe(missed);
  });

  it('a slot reserve rolled back by a deadlock gives its slot back, and the retry uses it', async () => {
    const state = { slotDeadlocks: 0 };
    const { pool, sent } = recordingPool(state);
    const ledger = new MysqlLedger(pool);
    await ledger.reserve(1, 2, 100, 'req-1', 'owner-a');
    await settled();
    state.slotDeadlocks = 1;
    sent.length = 0;
    expect(await ledger.reserve(1, 2, 100, 'req-2', 'owner-a')).toBe('ok');
    const tries = sent.filter(isSlotReserve).map((s) => s.values![10]);
    expect(tries).toHaveLength(2);
    expect(tries[1]).toBe(tries[0]);
  });

  it('removes its free slots at shutdown and stops adding more', async () => {
    const { pool, sent } = recordingPool();
    const ledger = new MysqlLedger(pool);
    await ledger.reserve(1, 2, 100, 'req-1', 'owner-a');
    await settled();
    sent.length = 0;
    await ledger.dropFreeSlots();
    expect(sent).toEqual([
      { on: 'pool', sql: `DELETE FROM quota_reservations WHERE owner = ? AND charged = ${FREE_SLOT}`, values: ['owner-a'] },
    ]);
    sent.length = 0;
    expect(await ledger.reserve(1, 2, 100, 'req-2', 'owner-a')).toBe('ok');
    expect(sent.some(isRefill)).toBe(false);
    expect(sent.some(isSlotReserve)).toBe(false);
  });
});
