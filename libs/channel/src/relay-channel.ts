import type { UpstreamTarget } from '@gw/upstream';
import type { ChannelEntity } from './channel.entity.js';
import { blockedRequestFields } from './other-settings.js';
import { enabledKeyIndexes, parseChannelInfo, splitKeys, type ChannelInfo } from './multi-key.js';

/** What the relay needs of a channel, parsed once when the routing table is built. */
export interface RelayChannel {
  id: number;
  type: number;
  name: string;
  key: string;
  baseUrl: string;
  other: string;
  models: string[];
  groups: string[];
  modelMapping: Record<string, string>;
  statusCodeMapping: Record<string, string>;
  paramOverride: Record<string, unknown> | null;
  headerOverride: Record<string, string> | null;
  setting: Record<string, unknown>;
  priority: number;
  weight: number;
  autoBan: boolean;
  status: number;
  testModel: string | null;
  /** Multi-key state (channel_info); `keys` holds the separate keys of a multi-key channel, else `[key]`. */
  info: ChannelInfo;
  keys: string[];
  /** new-api's other settings (`channels.settings`): Azure responses version, Vertex key type, allow_service_tier, ... */
  otherSettings: Record<string, unknown>;
  /** Body fields the other settings keep from the provider (see blockedRequestFields). */
  blockedFields: string[];
  /** The target with the channel's key; for a multi-key channel, its first enabled key (ChannelKeyService picks per request). */
  upstream: UpstreamTarget;
}

export function splitList(value: string | null | undefined): string[] {
  return [
    ...new Set(
      (value ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
}

function parseObject(text: string | null | undefined): Record<string, unknown> | null {
  if (!text?.trim()) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function stringMap(text: string | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parseObject(text) ?? {})) if (typeof v === 'string' || typeof v === 'number') out[k] = String(v);
  return out;
}

export function toRelayChannel(row: ChannelEntity): RelayChannel {
  const headerOverride = parseObject(row.headerOverride) ? stringMap(row.headerOverride) : null;
  const baseUrl = (row.baseUrl ?? '').replace(/\/+$/, '');
  const other = row.other ?? '';
  const info = parseChannelInfo(row.channelInfo);
  const otherSettings = parseObject(row.otherSettings) ?? {};
  const keys = info.is_multi_key ? splitKeys(row.key) : [row.key];
  const firstKey = keys[enabledKeyIndexes(info, keys)[0] ?? 0] ?? '';
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    key: row.key,
    baseUrl,
    other,
    models: splitList(row.models),
    groups: splitList(row.group),
    modelMapping: stringMap(row.modelMapping),
    statusCodeMapping: stringMap(row.statusCodeMapping),
    paramOverride: parseObject(row.paramOverride),
    headerOverride,
    setting: parseObject(row.setting) ?? {},
    priority: Number(row.priority) || 0,
    weight: Number(row.weight) || 0,
    autoBan: row.autoBan === 1,
    status: row.status,
    testModel: row.testModel || null,
    info,
    keys,
    otherSettings,
    blockedFields: blockedRequestFields(otherSettings),
    upstream: {
      id: row.id,
      type: row.type,
      key: firstKey,
      baseUrl,
      other,
      headerOverride,
      organization: row.openaiOrganization || null,
      createdTime: Number(row.createdTime) || 0,
      // Checked public when saved: the connection refuses a private address too (DNS rebinding, threats S5).
      ...(row.baseUrlPublic === 1 ? { publicOnly: true } : {}),
    },
  };
}
