import { describe, expect, it } from 'vitest';
import type { OptionService } from '@gw/option';
import { autoGroupsOf, groupInfos, usableGroups } from './groups.js';

const SPECIAL = 'group_ratio_setting.group_special_usable_group';

const optionsOf = (values: Record<string, unknown>) =>
  ({
    get: (key: string) =>
      ({
        UserUsableGroups: { default: '默认分组', vip: 'vip分组' },
        GroupRatio: { default: 1, vip: 1, svip: 2 },
        GroupGroupRatio: {},
        AutoGroups: ['default'],
        [SPECIAL]: {},
        ...values,
      })[key],
  }) as unknown as OptionService;

describe('usable groups (new-api GetUserUsableGroups)', () => {
  it('adds the user’s own group to UserUsableGroups', () => {
    const options = optionsOf({});
    expect(usableGroups(options, 'default')).toEqual({ default: '默认分组', vip: 'vip分组' });
    expect(usableGroups(options, 'team')).toEqual({ default: '默认分组', vip: 'vip分组', team: 'team' });
    expect(usableGroups(options, 'team', '用户分组').team).toBe('用户分组');
    expect(usableGroups(options)).toEqual({ default: '默认分组', vip: 'vip分组' });
  });

  it('applies GroupSpecialUsableGroup for the user’s group: +: and bare names add, -: removes', () => {
    const options = optionsOf({ [SPECIAL]: { vip: { '+:svip': '超级', extra: '额外', '-:default': 'x' } } });
    expect(usableGroups(options, 'vip')).toEqual({ vip: 'vip分组', svip: '超级', extra: '额外' });
    // Other user groups are untouched.
    expect(usableGroups(options, 'default')).toEqual({ default: '默认分组', vip: 'vip分组' });
  });

  it('keeps the user’s own group even when GroupSpecialUsableGroup removes it', () => {
    const options = optionsOf({ [SPECIAL]: { vip: { '-:vip': 'x' } } });
    expect(usableGroups(options, 'vip')).toEqual({ default: '默认分组', vip: 'vip' });
  });
});

describe('auto groups (new-api GetUserAutoGroup)', () => {
  it('keeps AutoGroups’ order and drops the groups the user may not use', () => {
    const options = optionsOf({ AutoGroups: ['svip', 'vip', 'default', 'auto'], [SPECIAL]: { default: { '-:vip': '' } } });
    expect(autoGroupsOf(options, 'default')).toEqual(['default']);
    expect(autoGroupsOf(options, 'vip')).toEqual(['vip', 'default']);
    expect(autoGroupsOf(options, 'svip')).toEqual(['svip', 'vip', 'default']);
  });
});

describe('groups list (new-api GetUserGroups)', () => {
  it('lists `auto` with its label only when it is usable', () => {
    expect(groupInfos(optionsOf({}), 'default').auto).toBeUndefined();
    const viaOption = optionsOf({ UserUsableGroups: { default: '默认分组', auto: '自动选择' } });
    expect(groupInfos(viaOption, 'default')).toEqual({
      default: { desc: '默认分组', ratio: 1 },
      auto: { desc: '自动选择', ratio: '自动' },
    });
    const viaSpecial = optionsOf({ [SPECIAL]: { vip: { '+:auto': '智能' } } });
    expect(groupInfos(viaSpecial, 'vip').auto).toEqual({ desc: '智能', ratio: '自动' });
    expect(groupInfos(viaSpecial, 'default').auto).toBeUndefined();
  });

  it('lists only usable groups that have a GroupRatio (the user’s own group always)', () => {
    const options = optionsOf({ [SPECIAL]: { vip: { '+:svip': '超级', '+:noratio': 'n' } } });
    expect(groupInfos(options, 'vip')).toEqual({
      default: { desc: '默认分组', ratio: 1 },
      vip: { desc: 'vip分组', ratio: 1 },
      svip: { desc: '超级', ratio: 2 },
    });
  });
});
