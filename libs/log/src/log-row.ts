import { nowSeconds } from '@gw/database';
import type { LogEntity } from './log.entity.js';
import { LogType, type NewLog } from './log-type.js';

/** PostgreSQL refuses NUL in text; upstream error bodies sometimes carry one (rarely: the check alone is cheaper). */
const clean = (value: string): string => (value.includes('\0') ? value.replaceAll('\0', '') : value);
/** The enum's members (names and values, as Object.values gives them), built once instead of per row. */
const KNOWN_TYPES = new Set<unknown>(Object.values(LogType));
/** Column widths of the migration: MySQL and PostgreSQL refuse a longer value (and with it the whole batch). */
const cut = (value: string | undefined, max: number): string => clean(value ?? '').slice(0, max);
const int = (value: number | undefined): number => (Number.isFinite(value) ? Math.trunc(value as number) : 0);

/** Maps a NewLog to the row inserted into `logs`. */
export function toLogRow(entry: NewLog): Partial<LogEntity> {
  return {
    userId: int(entry.userId),
    createdAt: entry.createdAt ?? nowSeconds(),
    type: KNOWN_TYPES.has(entry.type) ? entry.type : LogType.Unknown,
    content: clean(entry.content ?? ''),
    username: cut(entry.username, 255),
    tokenName: cut(entry.tokenName, 255),
    modelName: cut(entry.modelName, 255),
    quota: int(entry.quota),
    promptTokens: int(entry.promptTokens),
    completionTokens: int(entry.completionTokens),
    useTime: int(entry.useTime),
    isStream: entry.isStream ?? false,
    channelId: int(entry.channelId),
    tokenId: int(entry.tokenId),
    group: cut(entry.group, 64),
    ip: cut(entry.ip, 64),
    requestId: cut(entry.requestId, 64),
    other: entry.other ? JSON.stringify(entry.other) : '',
  };
}
