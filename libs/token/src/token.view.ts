import type { TokenView } from '@gw/contracts';
import { maskKey } from './token-key.js';
import type { TokenEntity } from './token.entity.js';

/** The console's token row; the key is masked (the full key only comes from the reveal route). */
export function toTokenView(row: TokenEntity): TokenView {
  return {
    id: row.id,
    user_id: row.userId,
    key: maskKey(row.key),
    status: row.status,
    name: row.name,
    created_time: row.createdTime,
    accessed_time: row.accessedTime,
    expired_time: row.expiredTime,
    remain_quota: row.remainQuota,
    unlimited_quota: row.unlimitedQuota,
    model_limits_enabled: row.modelLimitsEnabled,
    model_limits: row.modelLimits,
    allow_ips: row.allowIps ?? '',
    used_quota: row.usedQuota,
    group: row.group,
    cross_group_retry: row.crossGroupRetry,
    DeletedAt: null,
  };
}
