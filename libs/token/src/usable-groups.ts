import type { OptionService } from '@gw/option';

/** Groups a user may put on a token: the UserUsableGroups option plus the user's own group (new-api). */
export function usableGroupNames(options: OptionService, userGroup: string): Set<string> {
  const groups = new Set(Object.keys(options.get('UserUsableGroups')));
  if (userGroup) groups.add(userGroup);
  return groups;
}
