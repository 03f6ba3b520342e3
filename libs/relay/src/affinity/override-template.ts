import type { RelayChannel } from '@gw/channel';

const escapeKey = (key: string) => key.replace(/\./g, '\\.');
const operationsOf = (override: Record<string, unknown> | null): unknown[] | undefined =>
  Array.isArray(override?.operations) ? (override.operations as unknown[]) : undefined;

/**
 * The channel's param override with a rule's template under it (new-api's mergeChannelOverride): the channel's
 * own keys win and the template adds the keys the channel does not set; the template's operations run before
 * the channel's. Unlike new-api, flat keys are kept when operations join them: they become `set` operations run
 * last (as the flat form applies after everything), instead of being silently ignored.
 */
export function mergeOverrideTemplate(base: Record<string, unknown> | null, template: Record<string, unknown>): Record<string, unknown> {
  const templateOps = operationsOf(template);
  const baseOps = operationsOf(base);
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base ?? {})) if (key !== 'operations') flat[key] = value;
  for (const [key, value] of Object.entries(template)) if (key !== 'operations' && !Object.hasOwn(flat, key)) flat[key] = value;
  if (!templateOps && !baseOps) return flat;
  const sets = Object.entries(flat).map(([key, value]) => ({ mode: 'set', path: escapeKey(key), value }));
  return { operations: [...(templateOps ?? []), ...(baseOps ?? []), ...sets] };
}

/** The channel as one attempt sees it when an affinity rule brings a param override template. */
export function withOverrideTemplate(channel: RelayChannel, template: Record<string, unknown> | undefined): RelayChannel {
  if (!template || Object.keys(template).length === 0) return channel;
  return { ...channel, paramOverride: mergeOverrideTemplate(channel.paramOverride, template) };
}
