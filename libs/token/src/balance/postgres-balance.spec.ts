import { describe, expect, it } from 'vitest';
import { PostgresLedger } from './postgres-balance.js';

interface Sent {
  on: 'pool' | 'client';
  name?: string;
  text: string;
}

/** A pool that records every statement and answers each movement as done. */
function recordingPool() {
  const sent: Sent[] = [];
  const answer = (config: { name?: string; text: string }) => {
    const rows = config.name?.startsWith('gw_reserve')
      ? [{ reserved: 1 }]
      : config.name === 'gw_settle'
        ? [{ settled: 1, quota: 100, remain_quota: 100, unlimited_quota: 0 }]
        : [{ released: 1 }];
    return Promise.resolve({ rows });
  };
  const pool = {
    query: (config: { name?: string; text: string }) => {
      sent.push({ on: 'pool', name: config.name, text: config.text });
      return answer(config);
    },
    connect: async () => ({
      query: (config: { name?: string; text: string }) => {
        sent.push({ on: 'client', name: config.name, text: config.text });
        return answer(config);
      },
      release: () => undefined,
    }),
  };
  return { pool, sent };
}

const asyncCommit = (text: string) => /set_config\('synchronous_commit', 'off', true\)/.test(text);

describe('PostgresLedger commit modes', () => {
  it('commits a lone reserve asynchronously, with the setting local to its own transaction', async () => {
    const { pool, sent } = recordingPool();
    const ledger = new PostgresLedger(pool as never);
    expect(await ledger.reserve(1, 2, 50, 'req-1', 'owner')).toBe('ok');
    expect(await ledger.reserve(1, 0, 50, 'req-2', 'owner')).toBe('ok');
    expect(sent.map((s) => [s.on, s.name])).toEqual([
      ['pool', 'gw_reserve_token_async'],
      ['pool', 'gw_reserve_user_async'],
    ]);
    // is_local = true: SET LOCAL, so the pooled session keeps synchronous_commit for everything else.
    for (const s of sent) expect(asyncCommit(s.text)).toBe(true);
  });

  it('keeps settles, refunds and batched reserves durable (synchronous commit)', async () => {
    const { pool, sent } = recordingPool();
    const ledger = new PostgresLedger(pool as never);
    await ledger.reserve(1, 2, 50, 'req-1', 'owner');
    expect(await ledger.settle(1, 2, 50, 60, 'req-1')).toEqual({ charged: 60, shortfall: 0 });
    expect(await ledger.release(1, 2, 50, 'req-1')).toBe(true);
    // Submitted together (the refund's batch is still finishing): they share one BEGIN … COMMIT.
    await Promise.all([
      ledger.reserve(1, 2, 50, 'req-2', 'owner'),
      ledger.reserve(1, 2, 50, 'req-3', 'owner'),
      ledger.settle(1, 2, 50, 50, 'req-2'),
    ]);
    const plain = sent.filter((s) => s.name !== undefined && !s.name.endsWith('_async'));
    expect(plain.map((s) => [s.on, s.name])).toEqual([
      ['pool', 'gw_settle'],
      ['pool', 'gw_release'],
      ['client', 'gw_reserve_token'],
      ['client', 'gw_reserve_token'],
      ['client', 'gw_settle'],
    ]);
    for (const s of plain) expect(asyncCommit(s.text)).toBe(false);
    expect(sent.filter((s) => s.on === 'client' && s.name === undefined).map((s) => s.text)).toEqual(['BEGIN', 'COMMIT']);
  });
});
