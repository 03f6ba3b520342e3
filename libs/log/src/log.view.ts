import type { LogView } from '@gw/contracts';
import type { LogEntity } from './log.entity.js';

export type { LogView };

/** Keys of `other` that describe the operator's side (channels tried, stream internals): admins only. */
const ADMIN_OTHER_KEYS = ['admin_info', 'stream_status', 'channel_id', 'channel_name', 'channel_type'];

export function toAdminView(row: LogEntity, channelName: (id: number) => string): LogView {
  return { ...baseView(row), channel_name: row.channelId ? channelName(row.channelId) : '' };
}

/**
 * A user's own row: no channel id or name, no admin-only `other` keys, and (as new-api) the id is
 * the row's position in the result so ids reveal nothing about other users' traffic.
 */
export function toSelfView(row: LogEntity, position: number): LogView {
  return { ...baseView(row), id: position, channel: 0, channel_name: '', other: stripAdminKeys(row.other) };
}

function baseView(row: LogEntity): LogView {
  return {
    id: row.id,
    user_id: row.userId,
    created_at: row.createdAt,
    type: row.type,
    content: row.content ?? '',
    username: row.username,
    token_name: row.tokenName,
    model_name: row.modelName,
    quota: row.quota,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    use_time: row.useTime,
    is_stream: row.isStream,
    channel: row.channelId,
    channel_name: '',
    token_id: row.tokenId,
    group: row.group,
    ip: row.ip,
    request_id: row.requestId,
    other: row.other ?? '',
  };
}

function stripAdminKeys(other: string | null): string {
  if (!other) return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(other);
  } catch {
    // Not an object we can filter: hide it rather than risk leaking what it holds.
    return '';
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return '';
  const kept = Object.fromEntries(Object.entries(parsed).filter(([key]) => !ADMIN_OTHER_KEYS.includes(key)));
  return JSON.stringify(kept);
}
