import { describe, expect, it } from 'vitest';
import { buildRoutingTable, pickFromTiers, weightedPick } from './channel-router.js';
import { SINGLE_KEY_INFO } from './multi-key.js';
import type { RelayChannel } from './relay-channel.js';

function channel(id: number, priority: number, weight: number, extra: Partial<RelayChannel> = {}): RelayChannel {
  return {
    id,
    type: 1,
    name: `c${id}`,
    key: 'k',
    baseUrl: '',
    other: '',
    models: ['m'],
    groups: ['default'],
    modelMapping: {},
    statusCodeMapping: {},
    paramOverride: null,
    headerOverride: null,
    setting: {},
    priority,
    weight,
    autoBan: true,
    status: 1,
    testModel: null,
    info: SINGLE_KEY_INFO,
    keys: ['k'],
    otherSettings: {},
    blockedFields: [],
    upstream: { id, type: 1, key: 'k', baseUrl: '', other: '' },
    ...extra,
  };
}

const tiersOf = (channels: RelayChannel[], group = 'default', model = 'm') =>
  buildRoutingTable(channels).index.get(group)?.get(model) ?? [];

describe('channel selection', () => {
  it('always picks the highest priority tier first', () => {
    const tiers = tiersOf([channel(1, 0, 100), channel(2, 10, 1), channel(3, 5, 100)]);
    for (let i = 0; i < 1000; i++) expect(pickFromTiers(tiers, new Set())!.id).toBe(2);
  });

  it('moves to lower tiers by retry index and clamps at the lowest', () => {
    const tiers = tiersOf([channel(1, 0, 1), channel(2, 10, 1), channel(3, 5, 1)]);
    expect(pickFromTiers(tiers, new Set(), 0)!.id).toBe(2);
    expect(pickFromTiers(tiers, new Set(), 1)!.id).toBe(3);
    expect(pickFromTiers(tiers, new Set(), 2)!.id).toBe(1);
    expect(pickFromTiers(tiers, new Set(), 9)!.id).toBe(1);
  });

  it('never re-picks an excluded id, falling to other tiers', () => {
    const tiers = tiersOf([channel(1, 10, 1), channel(2, 10, 1), channel(3, 0, 1)]);
    for (let i = 0; i < 500; i++) expect([2]).toContain(pickFromTiers(tiers, new Set([1]))!.id);
    expect(pickFromTiers(tiers, new Set([1, 2]))!.id).toBe(3);
    expect(pickFromTiers(tiers, new Set([3]), 1)!.id).not.toBe(3);
    expect(pickFromTiers(tiers, new Set([1, 2, 3]))).toBeUndefined();
  });

  it('when the tier asked for is used up, tries the lower tiers before going back up', () => {
    const tiers = tiersOf([channel(1, 30, 1), channel(2, 20, 1), channel(3, 10, 1), channel(4, 0, 1)]);
    expect(pickFromTiers(tiers, new Set([2]), 1)!.id).toBe(3);
    expect(pickFromTiers(tiers, new Set([2, 3]), 1)!.id).toBe(4);
    expect(pickFromTiers(tiers, new Set([2, 3, 4]), 1)!.id).toBe(1);
    expect(pickFromTiers(tiers, new Set([3, 4]), 2)!.id).toBe(2);
  });

  /**
   * Rolls spread evenly over [0, 1) in any order of use (the golden-ratio sequence): the picks' shares then
   * depend on the weights alone. Math.random made the ±5% checks fail about once in a thousand runs.
   */
  const evenRolls = () => {
    let roll = 0;
    return () => (roll = (roll + 0.618_033_988_749_895) % 1);
  };

  it('distributes by weight within ±5% over 10,000 picks', () => {
    const tiers = tiersOf([channel(1, 0, 10), channel(2, 0, 30), channel(3, 0, 60)]);
    const counts = new Map<number, number>();
    const random = evenRolls();
    for (let i = 0; i < 10_000; i++) {
      const id = pickFromTiers(tiers, new Set(), 0, random)!.id;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect(Math.abs(counts.get(1)! / 10_000 - 0.1)).toBeLessThan(0.05 * 0.1 + 0.01);
    expect(Math.abs(counts.get(2)! / 10_000 - 0.3) / 0.3).toBeLessThan(0.05);
    expect(Math.abs(counts.get(3)! / 10_000 - 0.6) / 0.6).toBeLessThan(0.05);
  });

  it('counts each channel as 1 when every weight is 0', () => {
    const tiers = tiersOf([channel(1, 0, 0), channel(2, 0, 0)]);
    let ones = 0;
    const random = evenRolls();
    for (let i = 0; i < 10_000; i++) if (pickFromTiers(tiers, new Set(), 0, random)!.id === 1) ones++;
    expect(Math.abs(ones / 10_000 - 0.5) / 0.5).toBeLessThan(0.05);
    expect(weightedPick([{ weight: 0 }, { weight: 5 }], () => 0)).toEqual({ weight: 5 });
  });

  it('indexes only enabled channels, per group and model', () => {
    const table = buildRoutingTable([
      channel(1, 0, 1, { groups: ['default', 'vip'], models: ['a', 'b'] }),
      channel(2, 0, 1, { status: 2, models: ['c'] }),
      channel(3, 0, 1, { status: 3, models: ['d'] }),
    ]);
    expect([...table.index.get('default')!.keys()].sort()).toEqual(['a', 'b']);
    expect([...table.index.get('vip')!.keys()].sort()).toEqual(['a', 'b']);
    expect(table.byId.get(2)!.status).toBe(2);
  });
});
