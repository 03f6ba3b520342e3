import type { AffinityMatch } from './affinity-match.js';

/** What a param override reads of the request's affinity (`context:channel_affinity.key`, new-api's fields). */
export function affinityOverrideContext(match: AffinityMatch): Record<string, unknown> {
  return {
    key: match.value,
    rule_name: match.rule.name,
    key_source_type: match.source.type,
    key_source_key: match.source.key ?? '',
    key_source_path: match.source.path ?? '',
    key_source_nested_path: match.source.nested_path ?? '',
    key_hint: match.hint,
    key_fingerprint: match.fingerprint,
    using_group: match.usingGroup,
    model: match.model,
    request_path: match.path,
  };
}

/**
 * admin_info.channel_affinity (new-api's keys): written when the request went to its pinned channel (`pinned`),
 * or when its rule's param override template was applied; absent otherwise.
 */
export function affinityAdminInfo(
  match: AffinityMatch,
  pinned: { group: string; channelId: number } | undefined,
): Record<string, unknown> | undefined {
  const templateKeys = Object.keys(match.rule.param_override_template ?? {}).length;
  if (!pinned && templateKeys === 0) return undefined;
  const info: Record<string, unknown> = {
    reason: match.rule.name,
    rule_name: match.rule.name,
    using_group: match.usingGroup,
    model: match.model,
    request_path: match.path,
    key_source: match.source.type,
    key_key: match.source.key ?? '',
    key_path: match.source.path ?? '',
    key_hint: match.hint,
    key_fp: match.fingerprint,
  };
  if (pinned) Object.assign(info, { selected_group: pinned.group, channel_id: pinned.channelId });
  if (templateKeys > 0) info.override_template = { applied: true, rule_name: match.rule.name, param_override_keys: templateKeys };
  return { channel_affinity: info };
}
