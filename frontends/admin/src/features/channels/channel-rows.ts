import type { ChannelView } from '../../contracts';

/** A parent row of tag mode: the channels sharing one tag, folded under it. */
export interface TagRow {
  id: number;
  isTag: true;
  tag: string;
  children: ChannelView[];
  /** The tag row shows its channels' shared value, or nothing when they differ. */
  priority: number | null;
  weight: number | null;
  group: string;
  models: string;
  used_quota: number;
  enabledCount: number;
}

export type ChannelRow = ChannelView | TagRow;

export const isTagRow = (row: ChannelRow): row is TagRow => 'isTag' in row;

const shared = <T>(values: T[]): T | null => (values.length > 0 && values.every((value) => value === values[0]) ? values[0] : null);
const union = (lists: string[]) =>
  [
    ...new Set(
      lists
        .flatMap((list) => list.split(','))
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ].join(',');

/**
 * Tag mode: channels without a tag stay top-level rows; the others are folded under one row per tag,
 * in the order the server sent them. Tag rows get negative ids so they never collide with a channel.
 */
export function groupByTag(channels: ChannelView[]): ChannelRow[] {
  const rows: ChannelRow[] = [];
  const byTag = new Map<string, TagRow>();
  for (const channel of channels) {
    if (!channel.tag) {
      rows.push(channel);
      continue;
    }
    let tagRow = byTag.get(channel.tag);
    if (!tagRow) {
      tagRow = {
        id: -(byTag.size + 1),
        isTag: true,
        tag: channel.tag,
        children: [],
        priority: null,
        weight: null,
        group: '',
        models: '',
        used_quota: 0,
        enabledCount: 0,
      };
      byTag.set(channel.tag, tagRow);
      rows.push(tagRow);
    }
    tagRow.children.push(channel);
  }
  for (const tagRow of byTag.values()) {
    const children = tagRow.children;
    tagRow.priority = shared(children.map((child) => child.priority));
    tagRow.weight = shared(children.map((child) => child.weight));
    tagRow.group = union(children.map((child) => child.group));
    tagRow.models = union(children.map((child) => child.models));
    tagRow.used_quota = children.reduce((sum, child) => sum + child.used_quota, 0);
    tagRow.enabledCount = children.filter((child) => child.status === 1).length;
  }
  return rows;
}

/** Why and when a channel was disabled automatically, kept by the gateway in other_info. */
export function statusReason(channel: ChannelView): { reason: string; time: number } | null {
  if (!channel.other_info) return null;
  try {
    const info = JSON.parse(channel.other_info) as { status_reason?: unknown; status_time?: unknown };
    if (typeof info.status_reason !== 'string' || !info.status_reason) return null;
    return { reason: info.status_reason, time: typeof info.status_time === 'number' ? info.status_time : 0 };
  } catch {
    return null;
  }
}

export type SpeedColor = 'grey' | 'green' | 'lime' | 'yellow' | 'red';

/** Response time colours (spec 001 §9): up to 1 s green, 3 s lime, 5 s yellow, else red; 0 = untested. */
export function responseTimeColor(milliseconds: number): SpeedColor {
  if (!milliseconds) return 'grey';
  if (milliseconds <= 1000) return 'green';
  if (milliseconds <= 3000) return 'lime';
  if (milliseconds <= 5000) return 'yellow';
  return 'red';
}
