/**
 * Multi-key channels as new-api stores them: the keys in `channels.key` (one per line, or a JSON array of
 * JSON credentials such as Vertex service accounts) and the state in `channels.channel_info` (JSON):
 * `is_multi_key`, `multi_key_size`, `multi_key_mode` ("random" | "polling"), `multi_key_polling_index`,
 * and per-key maps keyed by the key's position: `multi_key_status_list` (1 enabled, 2 manually disabled,
 * 3 auto-disabled; a missing entry is enabled), `multi_key_disabled_reason`, `multi_key_disabled_time`.
 */
export type MultiKeyMode = 'random' | 'polling';

export const KeyStatus = { Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;

export interface ChannelInfo {
  is_multi_key: boolean;
  multi_key_size: number;
  multi_key_status_list: Record<string, number>;
  multi_key_disabled_reason?: Record<string, string>;
  multi_key_disabled_time?: Record<string, number>;
  multi_key_polling_index: number;
  multi_key_mode: MultiKeyMode | '';
}

export const SINGLE_KEY_INFO: ChannelInfo = {
  is_multi_key: false,
  multi_key_size: 0,
  multi_key_status_list: {},
  multi_key_polling_index: 0,
  multi_key_mode: '',
};

function record<T>(value: unknown, accept: (v: unknown) => v is T): Record<string, T> {
  const out: Record<string, T> = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value)) if (/^\d+$/.test(k) && accept(v)) out[k] = v;
  return out;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isString = (v: unknown): v is string => typeof v === 'string';

/** channel_info as text (or already parsed) → a complete ChannelInfo; anything unreadable is a single-key channel. */
export function parseChannelInfo(value: string | Record<string, unknown> | null | undefined): ChannelInfo {
  let raw: unknown = value;
  if (typeof value === 'string') {
    if (!value.trim()) return { ...SINGLE_KEY_INFO };
    try {
      raw = JSON.parse(value);
    } catch {
      return { ...SINGLE_KEY_INFO };
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ...SINGLE_KEY_INFO };
  const info = raw as Record<string, unknown>;
  const mode = info.multi_key_mode === 'polling' || info.multi_key_mode === 'random' ? info.multi_key_mode : '';
  const parsed: ChannelInfo = {
    is_multi_key: info.is_multi_key === true,
    multi_key_size: isNumber(info.multi_key_size) ? info.multi_key_size : 0,
    multi_key_status_list: record(info.multi_key_status_list, isNumber),
    multi_key_polling_index: isNumber(info.multi_key_polling_index) ? info.multi_key_polling_index : 0,
    multi_key_mode: mode,
  };
  const reasons = record(info.multi_key_disabled_reason, isString);
  const times = record(info.multi_key_disabled_time, isNumber);
  if (Object.keys(reasons).length) parsed.multi_key_disabled_reason = reasons;
  if (Object.keys(times).length) parsed.multi_key_disabled_time = times;
  return parsed;
}

/**
 * The keys of a channel in new-api's order (positions are what the status list refers to): a JSON array
 * gives one key per element (objects kept as JSON text), otherwise one key per line. Lines are trimmed of
 * `\r` and spaces; empty lines at the ends are dropped, inner ones keep their position (as new-api does).
 */
export function splitKeys(key: string): string[] {
  const trimmed = key.trim();
  if (!trimmed) return [];
  if (trimmed.startsWith('[')) {
    try {
      const items: unknown = JSON.parse(trimmed);
      if (Array.isArray(items)) return items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
    } catch {
      // Not JSON: one key per line below.
    }
  }
  return key
    .replace(/^\n+|\n+$/g, '')
    .split('\n')
    .map((line) => line.trim());
}

export function keyStatus(info: ChannelInfo, index: number): number {
  return info.multi_key_status_list[String(index)] ?? KeyStatus.Enabled;
}

export function enabledKeyIndexes(info: ChannelInfo, keys: readonly string[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < keys.length; i++) if (keys[i] && keyStatus(info, i) === KeyStatus.Enabled) out.push(i);
  return out;
}

/**
 * The key position to use next: random among the enabled keys, or in polling mode the first enabled key
 * at or after `cursor` (wrapping). Undefined when no key is enabled.
 */
export function chooseKeyIndex(
  mode: MultiKeyMode | '',
  enabled: readonly number[],
  size: number,
  cursor: number,
  random = Math.random,
): number | undefined {
  if (!enabled.length) return undefined;
  if (mode === 'random') return enabled[Math.floor(random() * enabled.length)];
  if (mode !== 'polling') return enabled[0];
  const start = cursor >= 0 && cursor < size ? cursor : 0;
  for (let step = 0; step < size; step++) {
    const index = (start + step) % size;
    if (enabled.includes(index)) return index;
  }
  return enabled[0];
}

/** channel_info with one key's status changed (reason and time recorded for a disable, cleared for an enable). */
export function withKeyStatus(info: ChannelInfo, index: number, status: number, reason: string, now: number): ChannelInfo {
  const key = String(index);
  const statuses = { ...info.multi_key_status_list, [key]: status };
  const reasons = { ...(info.multi_key_disabled_reason ?? {}) };
  const times = { ...(info.multi_key_disabled_time ?? {}) };
  if (status === KeyStatus.Enabled) {
    delete statuses[key];
    delete reasons[key];
    delete times[key];
  } else {
    reasons[key] = reason.slice(0, 500);
    times[key] = now;
  }
  return { ...info, multi_key_status_list: statuses, multi_key_disabled_reason: reasons, multi_key_disabled_time: times };
}

/** The keys of a multi-key form field: one per line (or a JSON array), trimmed, empty lines and repeats dropped. */
export function keysFromInput(text: string): string[] {
  return [
    ...new Set(
      splitKeys(text)
        .map((key) => key.trim())
        .filter(Boolean),
    ),
  ];
}

/** channel_info for a new multi-key channel of `size` keys, all enabled. */
export function newMultiKeyInfo(size: number, mode: MultiKeyMode): ChannelInfo {
  return { is_multi_key: true, multi_key_size: size, multi_key_status_list: {}, multi_key_polling_index: 0, multi_key_mode: mode };
}

/**
 * A multi-key channel's keys edited from the console: `append` adds the new keys after the current ones
 * (positions, and so per-key statuses, stay valid); `replace` starts a fresh list with every key enabled.
 */
export function updateMultiKeys(
  currentKey: string,
  info: ChannelInfo,
  input: string,
  keyMode: 'append' | 'replace',
): { key: string; info: ChannelInfo } {
  const incoming = keysFromInput(input);
  if (keyMode === 'append') {
    const current = splitKeys(currentKey);
    const added = incoming.filter((key) => !current.includes(key));
    const keys = [...current, ...added];
    return { key: keys.join('\n'), info: { ...info, is_multi_key: true, multi_key_size: keys.length } };
  }
  return { key: incoming.join('\n'), info: { ...newMultiKeyInfo(incoming.length, info.multi_key_mode || 'random') } };
}

/** channel_info with the key at `index` removed: later positions shift down, and so do their statuses. */
export function withoutKey(info: ChannelInfo, index: number, size: number): ChannelInfo {
  const shift = <T>(map: Record<string, T> | undefined): Record<string, T> => {
    const out: Record<string, T> = {};
    for (const [k, v] of Object.entries(map ?? {})) {
      const i = Number(k);
      if (i < index) out[k] = v;
      else if (i > index) out[String(i - 1)] = v;
    }
    return out;
  };
  return {
    ...info,
    multi_key_size: size - 1,
    multi_key_status_list: shift(info.multi_key_status_list),
    multi_key_disabled_reason: shift(info.multi_key_disabled_reason),
    multi_key_disabled_time: shift(info.multi_key_disabled_time),
    multi_key_polling_index: info.multi_key_polling_index >= size - 1 ? 0 : info.multi_key_polling_index,
  };
}

/**
 * The position of the key a channel test uses (the first enabled one) for a multi-key channel, so a failed
 * test disables that key rather than the channel; undefined for a single-key channel.
 */
export function testedKeyIndex(key: string, channelInfo: string | null): number | undefined {
  const info = parseChannelInfo(channelInfo);
  if (!info.is_multi_key) return undefined;
  return enabledKeyIndexes(info, splitKeys(key))[0];
}
