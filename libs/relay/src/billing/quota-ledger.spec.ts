import { SchedulerRegistry } from '@nestjs/schedule';
import Database from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
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
  const logs = { flush: () => Promise.resolve() } as unknown as LogService;
  const balances = () => ({
    user: db.prepare('SELECT quota, used_quota, request_count FROM users WHERE id = 1').get(),
    token: db.prepare('SELECT remain_quota, used_quota FROM tokens WHERE id = 2').get(),
  });
  const reservations = () => db.prepare('SELECT request_id, amount, charged FROM quota_reservations ORDER BY request_id').all();
  const events = new BalanceEvents();
  const changes: BalanceChanged[] = [];
  events.onBalanceChanged((change) => changes.push(change));
  return {
    ledger: new QuotaLedger(dataSource, logs, new BalanceLedger(dataSource, events), new SchedulerRegistry()),
    balances,
    reservations,
    changes,
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
