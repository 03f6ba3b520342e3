import { describe, expect, it } from 'vitest';
import type { ChannelRouter, RelayChannel } from '@gw/channel';
import type { OptionService } from '@gw/option';
import { ChannelSelection } from './channel-selection.js';
import type { RelayCaller, RelayPricing } from './ports.js';

/** A routing table of group → channel ids (one tier each, in order; a retry takes the next untried one). */
function selectionOf(table: Record<string, number[]>, values: Record<string, unknown> = {}, disabled: number[] = []) {
  const channel = (id: number) => ({ id, status: disabled.includes(id) ? 2 : 1 }) as RelayChannel;
  const router = {
    pick: (group: string, _model: string, exclude: ReadonlySet<number> = new Set()) => {
      const id = (table[group] ?? []).find((c) => !exclude.has(c));
      return id === undefined ? undefined : channel(id);
    },
    get: (id: number) => channel(id),
    serves: (group: string, _model: string, id: number) => !disabled.includes(id) && (table[group] ?? []).includes(id),
  } as unknown as ChannelRouter;
  const options = {
    get: (key: string) =>
      ({
        RetryTimes: 1,
        AutoGroups: ['default', 'vip'],
        UserUsableGroups: { default: '默认分组', vip: 'vip分组', auto: '自动' },
        'group_ratio_setting.group_special_usable_group': {},
        ...values,
      })[key],
  } as unknown as OptionService;
  const pricing = { usableGroups: () => ({ default: '', vip: '', auto: '' }) } as unknown as RelayPricing;
  return new ChannelSelection(router, pricing, options);
}

const caller = (extra: Partial<RelayCaller> = {}): RelayCaller => ({
  userId: 1,
  username: 'u',
  role: 1,
  userGroup: 'default',
  tokenId: 1,
  tokenName: 't',
  requestedGroup: 'auto',
  acceptUnsetModelRatioModel: false,
  recordIp: false,
  playground: false,
  ...extra,
});

/** Every channel the request's route would try after the first fails, each failing in turn. */
function walk(selection: ChannelSelection, who: RelayCaller): [string, number][] {
  return tries(selection.route(who, who.requestedGroup || who.userGroup, 'm'));
}

/** The channels a route tries: its first, then each retry, every one failing. */
function tries(route: ReturnType<ChannelSelection['route']>): [string, number][] {
  const tried = new Set([route.channel.id]);
  const seen: [string, number][] = [[route.group, route.channel.id]];
  for (let next = route.next(tried); next; next = route.next(tried)) {
    tried.add(next.id);
    seen.push([route.group, next.id]);
  }
  return seen;
}

describe('ChannelSelection: the auto group', () => {
  it('routes an auto request to the first auto group with a channel for the model', () => {
    const selection = selectionOf({ vip: [20] });
    const route = selection.route(caller(), 'auto', 'm');
    expect([route.group, route.channel.id]).toEqual(['vip', 20]);
  });

  it('refuses when no auto group has a channel, or the user has no auto group', () => {
    expect(() => selectionOf({ other: [1] }).route(caller(), 'auto', 'm')).toThrow(/no available channel for model m under group auto/);
    expect(() => selectionOf({ default: [1] }, { AutoGroups: ['svip'] }).route(caller(), 'auto', 'm')).toThrow(/no auto group/);
  });

  it('without cross_group_retry, retries stay in the group that served first', () => {
    expect(walk(selectionOf({ default: [1, 2, 3], vip: [20] }), caller())).toEqual([
      ['default', 1],
      ['default', 2],
    ]);
  });

  it('with cross_group_retry, spends RetryTimes in a group, then moves to the next auto group with a channel', () => {
    const selection = selectionOf({ default: [1, 2, 3], vip: [20, 21, 22] });
    expect(walk(selection, caller({ crossGroupRetry: true }))).toEqual([
      ['default', 1],
      ['default', 2],
      ['vip', 20],
      ['vip', 21],
    ]);
    // A group with no untried channel left is passed over at once.
    expect(walk(selectionOf({ default: [1], vip: [20] }), caller({ crossGroupRetry: true }))).toEqual([
      ['default', 1],
      ['vip', 20],
    ]);
  });

  it('never leaves a group when RetryTimes is 0 (new-api retries nothing then)', () => {
    expect(walk(selectionOf({ default: [1], vip: [20] }, { RetryTimes: 0 }), caller({ crossGroupRetry: true }))).toEqual([['default', 1]]);
  });

  it('names the auto group serving a request whose channel is fixed elsewhere (a task follow-up)', () => {
    const selection = selectionOf({ vip: [20] });
    expect(selection.servingGroup(caller(), 'auto', 'm')).toBe('vip');
    expect(selection.servingGroup(caller(), 'default', 'm')).toBe('default');
    expect(selection.servingGroup(caller({ pinnedChannelId: 7 }), 'auto', 'm')).toBe('auto');
    expect(selectionOf({ other: [1] }).servingGroup(caller(), 'auto', 'm')).toBe('auto');
  });

  it('keeps a plain group and a pinned channel in place', () => {
    expect(walk(selectionOf({ default: [1, 2], vip: [20] }), caller({ requestedGroup: 'vip', crossGroupRetry: true }))).toEqual([
      ['vip', 20],
    ]);
    expect(walk(selectionOf({ default: [1, 2] }), caller({ pinnedChannelId: 7, crossGroupRetry: true }))).toEqual([['auto', 7]]);
  });
});

describe('ChannelSelection: the channel an affinity pin names', () => {
  it('starts at the pinned channel and retries as usual, or not at all with skip_retry_on_failure', () => {
    const selection = selectionOf({ default: [10, 11] });
    expect(tries(selection.preferredRoute(caller({ requestedGroup: '' }), 'default', 'm', 11, false)!)).toEqual([
      ['default', 11],
      ['default', 10],
    ]);
    expect(tries(selection.preferredRoute(caller({ requestedGroup: '' }), 'default', 'm', 11, true)!)).toEqual([['default', 11]]);
  });

  it('bills an auto request in the first auto group that routes the pinned channel', () => {
    const selection = selectionOf({ default: [10], vip: [20] });
    const route = selection.preferredRoute(caller({ crossGroupRetry: true }), 'auto', 'm', 20, false)!;
    expect([route.group, route.channel.id]).toEqual(['vip', 20]);
  });

  it('has no route when the pinned channel is disabled or no longer routed for the group and model', () => {
    const selection = selectionOf({ default: [10, 11] }, {}, [11]);
    expect(selection.preferredRoute(caller({ requestedGroup: '' }), 'default', 'm', 11, false)).toBeUndefined();
    expect(selection.preferredRoute(caller({ requestedGroup: '' }), 'vip', 'm', 10, false)).toBeUndefined();
  });
});
