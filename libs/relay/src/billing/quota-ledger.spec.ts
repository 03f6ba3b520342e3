import { SchedulerRegistry } from '@nestjs/schedule';
import Database from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { describe, expect, it, vi } from 'vitest';
import type { LogService } from '@gw/log';
import { BalanceLedger } from '@gw/token';
import { BalanceEvents, type BalanceChanged } from '@gw/user';
import { QuotaLedger } from './quota-ledger.js';

function sqliteLedger(userQuota: number, tokenQuota: number) {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, quota INTEGER, used_quota INTEGER, request_count INTEGER)');
  db.exec('CREATE TABLE tokens (id INTEGER PRIMARY KEY, remain_quota INTEGER, used_quota INTEGER, unlimited_quota INTEGER)');
  db.prepare('INSERT INTO users VALUES (1, ?, 0, 0)').run(userQuota);
  db.prepare('INSERT INTO tokens VALUES (2, ?, 0, 0)').run(tokenQuota);
  db.exec(
    'CREATE TABLE quota_reservations (request_id TEXT PRIMARY KEY, user_id INTEGER, token_id INTEGER, amount INTEGER, charged INTEGER, owner TEXT, created_at INTEGER)',
  );
  const dataSource = { options: { type: 'better-sqlite3' }, driver: { databaseConnection: db } } as unknown as DataSource;
  // Whether the next log flush wrote every row (false: the database did not answer, rows wait).
  const logState = { written: true };
  const logs = { flush: () => Promise.resolve(logState.written) } as unknown as LogService;
  const balances = () => ({
    user: db.prepare('SELECT quota, used_quota, request_count FROM users WHERE id = 1').get(),
    token: db.prepare('SELECT remain_quota, used_quota FROM tokens WHERE id = 2').get(),
  });
  const reservations = () => db.prepare('SELECT request_id, amount, charged FROM quota_reservations ORDER BY request_id').all();
  const events = new BalanceEvents();
  const changes: BalanceChanged[] = [];
  events.onBalanceChanged((change) => changes.push(change));
  const balanceLedger = new BalanceLedger(dataSource, events);
  const ledger = new QuotaLedger(dataSource, logs, balanceLedger, new SchedulerRegistry());
  ledger.finishRetryDelaysMs = [0, 0];
  return {
    ledger,
    balanceLedger,
    balances,
    reservations,
    changes,
    logState,
  };
}

describe('QuotaLedger on SQLite', () => {
  it('plans issued together share a transaction, yet each is checked against the balances left by the ones before', async () => {
    const { ledger, balances } = sqliteLedger(250, 1000);
    const outcomes = await Promise.all([
      ledger.reserve(1, 2, 100),
      ledger.reserve(1, 2, 100),
      ledger.reserve(1, 2, 100),
      ledger.reserve(1, 2, 50),
    ]);
    expect(outcomes).toEqual(['ok', 'ok', 'user_quota', 'ok']);
    expect(balances()).toEqual({ user: { quota: 0, used_quota: 0, request_count: 0 }, token: { remain_quota: 750, used_quota: 250 } });
  });

  it('a refused plan in a batch rolls back alone (the user debit of a token refusal is undone)', async () => {
    const { ledger, balances } = sqliteLedger(1000, 150);
    const outcomes = await Promise.all([ledger.reserve(1, 2, 100), ledger.reserve(1, 2, 100), ledger.settle(1, 2, 100, 40)]);
    expect(outcomes).toEqual(['ok', 'token_quota', { charged: 40, shortfall: 0 }]);
    expect(balances()).toEqual({ user: { quota: 960, used_quota: 40, request_count: 1 }, token: { remain_quota: 110, used_quota: 40 } });
  });

  it('a settle the balance cannot cover charges in full: the balance goes below zero by the extra, and a debt refuses the next reserve', async () => {
    const { ledger, balances } = sqliteLedger(100, 1000);
    expect(await ledger.reserve(1, 2, 60)).toBe('ok');
    expect(await ledger.settle(1, 2, 60, 500)).toEqual({ charged: 500, shortfall: 400 });
    expect(balances().user).toEqual({ quota: -400, used_quota: 500, request_count: 1 });
    expect(await ledger.reserve(1, 2, 0)).toBe('user_quota');
  });

  it('a durable reservation is recorded with the reserve, marked by the settle, and removed by the refund or once forgotten', async () => {
    const { ledger, balances, reservations } = sqliteLedger(1000, 1000);
    expect(await Promise.all([ledger.reserve(1, 2, 100, 'a'), ledger.reserve(1, 2, 100, 'b')])).toEqual(['ok', 'ok']);
    expect(reservations()).toEqual([
      { request_id: 'a', amount: 100, charged: -1 },
      { request_id: 'b', amount: 100, charged: -1 },
    ]);
    expect(await ledger.settle(1, 2, 100, 30, 'a')).toEqual({ charged: 30, shortfall: 0 });
    expect(await ledger.release(1, 2, 100, 'b')).toBe(true);
    expect(reservations()).toEqual([{ request_id: 'a', amount: 100, charged: 30 }]);
    // Exactly once: a second refund or settle of the same request does nothing.
    expect(await ledger.release(1, 2, 100, 'a')).toBe(false);
    expect(await ledger.settle(1, 2, 100, 30, 'a')).toBeUndefined();
    expect(balances().user).toEqual({ quota: 970, used_quota: 30, request_count: 1 });
    await ledger.forgetSettled();
    expect(reservations()).toEqual([]);
  });

  it('keeps a settled reservation while its log row waits for the database, and removes it after a flush that wrote it', async () => {
    const { ledger, reservations, logState } = sqliteLedger(1000, 1000);
    expect(await ledger.reserve(1, 2, 100, 'a')).toBe('ok');
    await ledger.settle(1, 2, 100, 30, 'a');
    logState.written = false;
    await ledger.forgetSettled();
    expect(reservations()).toEqual([{ request_id: 'a', amount: 100, charged: 30 }]);
    logState.written = true;
    await ledger.forgetSettled();
    expect(reservations()).toEqual([]);
  });

  it('announces every committed movement on BalanceChanged, and nothing for a refused one', async () => {
    const { ledger, changes } = sqliteLedger(150, 1000);
    expect(await ledger.reserve(1, 2, 100, 'a')).toBe('ok');
    expect(await ledger.reserve(1, 2, 100, 'b')).toBe('user_quota');
    expect(changes).toEqual([{ userId: 1, tokenId: 2 }]);
    await ledger.settle(1, 2, 100, 80, 'a');
    expect(await ledger.release(1, 2, 100, 'a')).toBe(false);
    expect(await ledger.reserve(1, 0, 10)).toBe('ok');
    expect(changes).toEqual([{ userId: 1, tokenId: 2 }, { userId: 1, tokenId: 2 }, { userId: 1 }]);
  });
});

/** Makes the ledger's next `failures` calls of `method` throw, after running the real call when `commitFirst` (an answer lost after the commit). */
function failing<K extends 'settle' | 'release'>(target: BalanceLedger, method: K, failures: number, commitFirst: boolean) {
  const real = target[method].bind(target) as (...args: unknown[]) => Promise<unknown>;
  let calls = 0;
  target[method] = (async (...args: unknown[]) => {
    calls++;
    if (calls > failures) return real(...args);
    if (commitFirst) await real(...args);
    throw new Error('Connection lost: The server closed the connection.');
  }) as BalanceLedger[K];
  return () => calls;
}

describe('QuotaLedger when the database does not answer a settle or refund', () => {
  it('tries a failed settle again and charges it once', async () => {
    const { ledger, balanceLedger, balances, reservations } = sqliteLedger(1000, 1000);
    expect(await ledger.reserve(1, 2, 100, 'a')).toBe('ok');
    const calls = failing(balanceLedger, 'settle', 2, false);
    expect(await ledger.settle(1, 2, 100, 30, 'a')).toEqual({ charged: 30, shortfall: 0 });
    expect(calls()).toBe(3);
    expect(balances().user).toEqual({ quota: 970, used_quota: 30, request_count: 1 });
    await ledger.forgetSettled();
    expect(reservations()).toEqual([]);
  });

  it('a settle that committed but lost its answer is reported as charged, not as already closed, and is forgotten', async () => {
    const { ledger, balanceLedger, balances, reservations } = sqliteLedger(1000, 1000);
    expect(await ledger.reserve(1, 2, 100, 'a')).toBe('ok');
    failing(balanceLedger, 'settle', 1, true);
    expect(await ledger.settle(1, 2, 100, 30, 'a')).toEqual({ charged: 30, shortfall: 0 });
    expect(balances()).toEqual({ user: { quota: 970, used_quota: 30, request_count: 1 }, token: { remain_quota: 970, used_quota: 30 } });
    await ledger.forgetSettled();
    expect(reservations()).toEqual([]);
  });

  it('tries a failed refund again behind the caller; one that committed is not given back twice', async () => {
    const { ledger, balanceLedger, balances, reservations } = sqliteLedger(1000, 1000);
    expect(await Promise.all([ledger.reserve(1, 2, 100, 'a'), ledger.reserve(1, 2, 100, 'b')])).toEqual(['ok', 'ok']);
    const calls = failing(balanceLedger, 'release', 1, false);
    // The caller is answering a client: it hears at once, and the refund goes on.
    expect(await ledger.release(1, 2, 100, 'a')).toBe(false);
    await vi.waitFor(() => expect(calls()).toBe(2));
    await vi.waitFor(() => expect(balances().user).toEqual({ quota: 900, used_quota: 0, request_count: 0 }));
    const again = failing(balanceLedger, 'release', 1, true);
    await ledger.release(1, 2, 100, 'b');
    await vi.waitFor(() => expect(again()).toBe(2));
    expect(balances().user).toEqual({ quota: 1000, used_quota: 0, request_count: 0 });
    expect(reservations()).toEqual([]);
  });

  it('gives up after the last pause and says so, leaving the reservation open for the recovery job', async () => {
    const { ledger, balanceLedger, reservations } = sqliteLedger(1000, 1000);
    expect(await ledger.reserve(1, 2, 100, 'a')).toBe('ok');
    const calls = failing(balanceLedger, 'settle', 10, false);
    await expect(ledger.settle(1, 2, 100, 30, 'a')).rejects.toThrow('Connection lost');
    expect(calls()).toBe(3);
    expect(reservations()).toEqual([{ request_id: 'a', amount: 100, charged: -1 }]);
  });

  it('gives back what a reserve that failed without an answer recorded, behind its caller', async () => {
    const { ledger, balanceLedger, balances, reservations } = sqliteLedger(1000, 1000);
    const real = balanceLedger.reserve.bind(balanceLedger);
    let calls = 0;
    balanceLedger.reserve = async (...args) => {
      calls++;
      await real(...args);
      if (calls === 1) throw new Error('Connection lost: The server closed the connection.');
      return 'ok';
    };
    await expect(ledger.reserve(1, 2, 100, 'a')).rejects.toThrow('Connection lost');
    await vi.waitFor(() => expect(balances().user).toEqual({ quota: 1000, used_quota: 0, request_count: 0 }));
    expect(reservations()).toEqual([]);
    // A reserve that did commit and answered stays.
    expect(await ledger.reserve(1, 2, 100, 'b')).toBe('ok');
    expect(reservations()).toEqual([{ request_id: 'b', amount: 100, charged: -1 }]);
  });

  it('does not repeat a settle without a request id (nothing makes it safe to repeat)', async () => {
    const { ledger, balanceLedger } = sqliteLedger(1000, 1000);
    expect(await ledger.reserve(1, 2, 100)).toBe('ok');
    const calls = failing(balanceLedger, 'settle', 1, false);
    await expect(ledger.settle(1, 2, 100, 30)).rejects.toThrow('Connection lost');
    expect(calls()).toBe(1);
  });
});
