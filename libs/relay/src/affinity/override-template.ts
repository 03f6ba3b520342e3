import type { RelayChannel } from '@gw/channel';

/**
 * The channel's param override with a rule's template under it (new-api's mergeChannelOverride): the channel's
 * own keys win and the template adds the keys the channel does not set. The template's `operations` list is left
 * out: the relay applies the flat override form only, and an `operations` key would switch the channel's own
 * flat keys off.
 */
export function mergeOverrideTemplate(base: Record<string, unknown> | null, template: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(template)) {
    if (key.trim().toLowerCase() === 'operations') continue;
    if (!Object.hasOwn(out, key)) out[key] = value;
  }
  return out;
}

/** The channel as one attempt sees it when an affinity rule brings a param override template. */
export function withOverrideTemplate(channel: RelayChannel, template: Record<string, unknown> | undefined): RelayChannel {
  if (!template || Object.keys(template).length === 0) return channel;
  return { ...channel, paramOverride: mergeOverrideTemplate(channel.paramOverride, template) };
}
