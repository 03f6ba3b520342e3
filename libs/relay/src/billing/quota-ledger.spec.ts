import Database from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { QuotaLedger } from './quota-ledger.js';

function sqliteLedger(userQuota: number, tokenQuota: number) {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, quota INTEGER, used_quota INTEGER, request_count INTEGER)');
  db.exec('CREATE TABLE tokens (id INTEGER PRIMARY KEY, remain_quota INTEGER, used_quota INTEGER, unlimited_quota INTEGER)');
  db.prepare('INSERT INTO users VALUES (1, ?, 0, 0)').run(userQuota);
  db.prepare('INSERT INTO tokens VALUES (2, ?, 0, 0)').run(tokenQuota);
  const dataSource = { options: { type: 'better-sqlite3' }, driver: { databaseConnection: db } } as unknown as DataSource;
  const balances = () => ({
    user: db.prepare('SELECT quota, used_quota, request_count FROM users WHERE id = 1').get(),
    token: db.prepare('SELECT remain_quota, used_quota FROM tokens WHERE id = 2').get(),
  });
  return { ledger: new QuotaLedger(dataSource), balances };
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
    expect(outcomes).toEqual(['ok', 'token_quota', { charged: 40, capped: false }]);
    expect(balances()).toEqual({ user: { quota: 960, used_quota: 40, request_count: 1 }, token: { remain_quota: 110, used_quota: 40 } });
  });

  it('a lone plan and a capped settle still work', async () => {
    const { ledger, balances } = sqliteLedger(100, 1000);
    expect(await ledger.reserve(1, 2, 60)).toBe('ok');
    expect(await ledger.settle(1, 2, 60, 500)).toEqual({ charged: 100, capped: true });
    expect(balances().user).toEqual({ quota: 0, used_quota: 100, request_count: 1 });
  });
});
