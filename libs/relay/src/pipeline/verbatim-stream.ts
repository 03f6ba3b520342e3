import type { RelayChannel } from '@gw/channel';
import type { ProviderSettings } from '../providers/types.js';

/**
 * new-api's request pass-through, on for every channel (global.pass_through_request_enabled) or for one
 * (its setting pass_through_body_enabled): the provider's stream then reaches the client exactly as it came,
 * with none of the relay's event rewrites (new-api's shouldSkipClaudeMessageDeltaUsagePatch).
 */
export function relaysVerbatim(channel: RelayChannel, settings: ProviderSettings): boolean {
  return settings.get<boolean>('global.pass_through_request_enabled') === true || channel.setting.pass_through_body_enabled === true;
}
