import { AppError } from '@gw/core';
import { splitAllowIps } from './allow-ips.js';
import type { TokenEntity } from './token.entity.js';

/** Whatever the client presented; the relay fills the fields its route accepts. */
export interface RelayCredentials {
  authorization?: string;
  xApiKey?: string;
  xGoogApiKey?: string;
  queryKey?: string;
}

/** The relay's view of a token (in memory; `key` is the stored key without `sk-`). */
export interface TokenSnapshot {
  id: number;
  userId: number;
  name: string;
  key: string;
  status: number;
  expiredTime: number;
  remainQuota: number;
  usedQuota: number;
  unlimitedQuota: boolean;
  modelLimitsEnabled: boolean;
  modelLimits: string[];
  allowIps: string[];
  group: string;
  /** An `auto` token moves on to the next auto group once a group's retries are spent. */
  crossGroupRetry: boolean;
}

/** The parts of the user's setting the relay reads (secrets such as the webhook secret stay out). */
export interface UserSetting {
  acceptUnsetModelRatioModel: boolean;
  /** new-api's `record_ip_log`: store the client IP in consume logs. */
  recordIpLog: boolean;
}

/** The relay's view of a user; `quota` may be up to SYNC_FREQUENCY seconds stale. */
export interface UserSnapshot {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
  quota: number;
  setting: UserSetting;
}

/** The index's own snapshots, not copies (this is on every relay request): read them, never write them. */
export interface RelayIdentity {
  readonly token: Readonly<TokenSnapshot>;
  readonly user: Readonly<UserSnapshot>;
  /** `sk-KEY-CHANNELID` from an admin: use this channel only, no retries. */
  pinnedChannelId?: number;
}

/**
 * A refused relay credential: rendered by the global filter as an OpenAI error with `relayStatus`, its
 * message ending with the request id on relay paths (new-api's token auth appends it).
 */
export class RelayAuthError extends AppError {
  readonly appendRequestId = true;
  constructor(message: string, relayStatus: 401 | 403 | 400, code: string) {
    super(message, relayStatus, code, relayStatus);
  }
}

export function toTokenSnapshot(row: TokenEntity): TokenSnapshot {
  return {
    id: row.id,
    userId: row.userId,
    name: row.name,
    key: row.key,
    status: row.status,
    expiredTime: row.expiredTime,
    remainQuota: row.remainQuota,
    usedQuota: row.usedQuota,
    unlimitedQuota: row.unlimitedQuota,
    modelLimitsEnabled: row.modelLimitsEnabled,
    modelLimits: row.modelLimits
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean),
    allowIps: splitAllowIps(row.allowIps),
    group: row.group ?? '',
    crossGroupRetry: row.crossGroupRetry === true,
  };
}
