import type { OptionService } from '@gw/option';

export interface GroupInfo {
  desc: string;
  ratio: number;
}

/** Groups a user may use: UserUsableGroups plus the user's own group (new-api GetUserUsableGroups). */
export function usableGroups(options: OptionService, userGroup?: string): Record<string, string> {
  const usable: Record<string, string> = { ...options.get('UserUsableGroups') };
  if (userGroup && !(userGroup in usable)) usable[userGroup] = userGroup;
  return usable;
}

/** `{group: {desc, ratio}}` for usable groups that have a ratio (plus the user's own group). */
export function groupInfos(options: OptionService, userGroup?: string): Record<string, GroupInfo> {
  const ratios = options.get('GroupRatio');
  const special = userGroup ? options.get('GroupGroupRatio')[userGroup] : undefined;
  const out: Record<string, GroupInfo> = {};
  for (const [group, desc] of Object.entries(usableGroups(options, userGroup))) {
    // What this user's group pays there: GroupGroupRatio's override, else the group's ratio (new-api GetUserGroupRatio).
    if (group in ratios) out[group] = { desc, ratio: special && Object.hasOwn(special, group) ? special[group]! : ratios[group]! };
    else if (group === userGroup) out[group] = { desc, ratio: 1 };
  }
  return out;
}
