import type { OptionService } from '@gw/option';
import { usableGroups } from '@gw/user';

/** Groups a user may put on a token (new-api GetUserUsableGroups, `auto` included when usable). */
export function usableGroupNames(options: OptionService, userGroup: string): Set<string> {
  return new Set(Object.keys(usableGroups(options, userGroup)));
}
