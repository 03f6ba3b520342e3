import { describe, expect, it } from 'vitest';
import { TokenIndex } from './token-index.js';
import { TokenStatus, type TokenEntity } from './token.entity.js';
import type { TokenRepository } from './token.repository.js';

function row(id: number, key: string, extra: Partial<TokenEntity> = {}): TokenEntity {
  return {
    id,
    userId: 1,
    key,
    status: TokenStatus.Enabled,
    name: `t${id}`,
    createdTime: 0,
    accessedTime: 0,
    expiredTime: -1,
    remainQuota: 100,
    unlimitedQuota: false,
    modelLimitsEnabled: false,
    modelLimits: '',
    allowIps: '',
    usedQuota: 0,
    group: '',
    crossGroupRetry: false,
    deletedAt: null,
    ...extra,
  };
}

/** A repository over an array, counting the reads that reach it. */
function fakeRepository(rows: TokenEntity[]) {
  const reads = { all: 0, byKey: 0, byId: 0 };
  const repo = {
    findAllLive: async () => {
      reads.all++;
      return rows.map((r) => ({ ...r }));
    },
    findByKey: async (key: string) => {
      reads.byKey++;
      return rows.find((r) => r.key === key) ?? null;
    },
    findById: async (id: number) => {
      reads.byId++;
      return rows.find((r) => r.id === id) ?? null;
    },
  };
  return { repo: repo as unknown as TokenRepository, reads, rows };
}

describe('TokenIndex', () => {
  it('answers known keys from memory after the boot load', async () => {
    const { repo, reads } = fakeRepository([row(1, 'a'.repeat(48))]);
    const index = new TokenIndex(repo);
    await index.reload();
    expect((await index.lookup('a'.repeat(48)))?.snapshot.id).toBe(1);
    expect((await index.lookup('a'.repeat(48)))?.snapshot.id).toBe(1);
    expect(reads).toEqual({ all: 1, byKey: 0, byId: 0 });
  });

  it('reads a missing key once, then remembers that it is unknown', async () => {
    const { repo, reads } = fakeRepository([]);
    const index = new TokenIndex(repo);
    await index.reload();
    await Promise.all(Array.from({ length: 20 }, () => index.lookup('nope')));
    await index.lookup('nope');
    expect(reads.byKey).toBe(1);
    expect(await index.lookup('x'.repeat(129))).toBeUndefined();
    expect(reads.byKey).toBe(1);
  });

  it('finds a token created elsewhere on first use, and caches it', async () => {
    const { repo, reads, rows } = fakeRepository([]);
    const index = new TokenIndex(repo);
    await index.reload();
    rows.push(row(7, 'b'.repeat(48)));
    expect((await index.lookup('b'.repeat(48)))?.snapshot.id).toBe(7);
    expect((await index.lookup('b'.repeat(48)))?.snapshot.id).toBe(7);
    expect(reads.byKey).toBe(1);
  });

  it('refreshes one token after a write and forgets deleted ones', async () => {
    const { repo, rows } = fakeRepository([row(1, 'c'.repeat(48))]);
    const index = new TokenIndex(repo);
    await index.reload();
    rows[0]!.status = TokenStatus.Disabled;
    await index.refresh(1);
    expect(index.get(1)?.snapshot.status).toBe(TokenStatus.Disabled);
    rows.length = 0;
    await index.refresh(1);
    expect(index.get(1)).toBeUndefined();
    expect(await index.lookup('c'.repeat(48))).toBeUndefined();
  });

  it('does not let a slow full reload undo a refresh that happened meanwhile', async () => {
    const { repo, rows } = fakeRepository([row(1, 'd'.repeat(48))]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const stale = rows.map((r) => ({ ...r }));
    (repo as unknown as { findAllLive: () => Promise<TokenEntity[]> }).findAllLive = async () => {
      await gate;
      return stale;
    };
    const index = new TokenIndex(repo);
    const reload = index.reload();
    rows[0]!.status = TokenStatus.Disabled;
    await index.refresh(1);
    release();
    await reload;
    expect(index.get(1)?.snapshot.status).toBe(TokenStatus.Disabled);
  });
});
