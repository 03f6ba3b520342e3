import type { OptionService } from '@gw/option';

export interface GroupInfo {
  desc: string;
  /** The ratio the user pays there; the `auto` entry carries a label instead (new-api). */
  ratio: number | string;
}

/** The group whose tokens walk the user's auto groups (new-api). */
export const AUTO_GROUP = 'auto';

/** new-api's `ratio` of the `auto` entry in the groups lists (its "自动" label). */
export const AUTO_GROUP_RATIO_LABEL = '自动';

const SPECIAL_USABLE_GROUP = 'group_ratio_setting.group_special_usable_group';

/**
 * Groups a user may use (new-api GetUserUsableGroups): UserUsableGroups, changed by GroupSpecialUsableGroup's
 * entry for the user's group (`-:g` removes g, `+:g` or a bare `g` adds it with the entry's description),
 * plus the user's own group (described as `ownGroupDesc`, else by its name).
 */
export function usableGroups(options: OptionService, userGroup?: string, ownGroupDesc?: string): Record<string, string> {
  const usable: Record<string, string> = { ...options.get('UserUsableGroups') };
  if (!userGroup) return usable;
  // (`?? {}`: partial option fakes in unit tests.)
  const special = options.get(SPECIAL_USABLE_GROUP) ?? {};
  const changes = Object.hasOwn(special, userGroup) ? special[userGroup] : undefined;
  for (const [entry, desc] of Object.entries(changes ?? {})) {
    if (entry.startsWith('-:')) delete usable[entry.slice(2)];
    else usable[entry.startsWith('+:') ? entry.slice(2) : entry] = desc;
  }
  if (!Object.hasOwn(usable, userGroup)) usable[userGroup] = ownGroupDesc ?? userGroup;
  return usable;
}

/** The groups an `auto` request walks for this user: AutoGroups kept to the usable ones, in AutoGroups' order (new-api GetUserAutoGroup). */
export function autoGroupsOf(options: OptionService, userGroup?: string): string[] {
  const usable = usableGroups(options, userGroup);
  return options.get('AutoGroups').filter((group) => group !== AUTO_GROUP && Object.hasOwn(usable, group));
}

/**
 * `{group: {desc, ratio}}` (new-api GetUserGroups): the usable groups that have a GroupRatio (the user's own group
 * always), each with what the user's group pays there, plus `auto` with its label when `auto` is usable.
 */
export function groupInfos(options: OptionService, userGroup?: string): Record<string, GroupInfo> {
  const ratios = options.get('GroupRatio');
  const special = userGroup ? options.get('GroupGroupRatio')[userGroup] : undefined;
  const usable = usableGroups(options, userGroup);
  const out: Record<string, GroupInfo> = {};
  for (const [group, desc] of Object.entries(usable)) {
    // What this user's group pays there: GroupGroupRatio's override, else the group's ratio (new-api GetUserGroupRatio).
    if (Object.hasOwn(ratios, group))
      out[group] = { desc, ratio: special && Object.hasOwn(special, group) ? special[group]! : ratios[group]! };
    else if (group === userGroup) out[group] = { desc, ratio: 1 };
  }
  if (Object.hasOwn(usable, AUTO_GROUP)) out[AUTO_GROUP] = { desc: usable[AUTO_GROUP]!, ratio: AUTO_GROUP_RATIO_LABEL };
  return out;
}
