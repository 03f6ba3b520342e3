/**
 * The request fields a channel's other settings (`channels.settings`, new-api's ChannelOtherSettings) keep
 * from reaching the provider. As in new-api: `service_tier` is dropped unless `allow_service_tier` (a
 * client asking for a priority tier would otherwise be billed extra by the provider, not by us),
 * `safety_identifier` unless `allow_safety_identifier`, and `store` only when `disable_store` is set.
 */
export function blockedRequestFields(settings: Record<string, unknown>): string[] {
  const blocked: string[] = [];
  if (settings.allow_service_tier !== true) blocked.push('service_tier');
  if (settings.allow_safety_identifier !== true) blocked.push('safety_identifier');
  if (settings.disable_store === true) blocked.push('store');
  return blocked;
}
