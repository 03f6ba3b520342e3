import type { CreateTokenRequest } from '@gw/contracts';
import { BusinessError } from '@gw/core';
import { nowSeconds } from '@gw/database';
import type { OptionService } from '@gw/option';
import { invalidAllowIp, splitAllowIps } from './allow-ips.js';
import { TokenStatus, type TokenEntity } from './token.entity.js';
import { usableGroupNames } from './usable-groups.js';

/** Year 9999: anything later is not a plausible unix time. */
const MAX_EXPIRY = 253_402_300_799;

type EditableFields = Omit<CreateTokenRequest, 'count'>;
export type TokenFields = Pick<
  TokenEntity,
  | 'name'
  | 'remainQuota'
  | 'unlimitedQuota'
  | 'expiredTime'
  | 'modelLimitsEnabled'
  | 'modelLimits'
  | 'allowIps'
  | 'group'
  | 'crossGroupRetry'
>;

/**
 * Checks and normalises the editable fields of a token. `previousExpiry` lets an edit keep an
 * expiry that has already passed (only a changed expiry must lie in the future).
 */
export function validateTokenFields(
  input: EditableFields,
  options: OptionService,
  userGroup: string,
  previousExpiry?: number,
): TokenFields {
  const expiry = input.expired_time;
  if (expiry !== previousExpiry) {
    if (expiry !== -1 && (expiry < 0 || expiry > MAX_EXPIRY)) throw new BusinessError('expiry time format error');
    if (expiry !== -1 && expiry <= nowSeconds()) throw new BusinessError('the expiry time must be in the future (or -1 for never)');
  }
  if (input.remain_quota > 1e9 * options.get('QuotaPerUnit')) throw new BusinessError('remain_quota is out of range');

  const allowIps = splitAllowIps(input.allow_ips);
  const badIp = invalidAllowIp(allowIps);
  if (badIp !== undefined) throw new BusinessError(`allow_ips: '${badIp.slice(0, 64)}' is not an IP address or CIDR range`);

  const group = input.group;
  if (group && !usableGroupNames(options, userGroup).has(group)) throw new BusinessError(`you are not allowed to use the group '${group}'`);

  const models = [
    ...new Set(
      input.model_limits
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean),
    ),
  ];
  if (input.model_limits_enabled && models.length === 0) throw new BusinessError('select at least one model when model limits are enabled');

  return {
    name: input.name,
    remainQuota: input.remain_quota,
    unlimitedQuota: input.unlimited_quota,
    expiredTime: expiry,
    modelLimitsEnabled: input.model_limits_enabled,
    modelLimits: models.join(','),
    allowIps: allowIps.join('\n'),
    group,
    crossGroupRetry: input.cross_group_retry,
  };
}

export function isPastExpiry(token: Pick<TokenEntity, 'expiredTime'>, now = nowSeconds()): boolean {
  return token.expiredTime !== -1 && token.expiredTime < now;
}

export function isOutOfQuota(token: Pick<TokenEntity, 'unlimitedQuota' | 'remainQuota'>): boolean {
  return !token.unlimitedQuota && token.remainQuota <= 0;
}

/** An expired or exhausted token stays off until its expiry or quota is fixed. */
export function assertCanEnable(token: TokenEntity): void {
  if (isPastExpiry(token)) {
    throw new BusinessError('the token has expired and cannot be enabled: change its expiry time first (or set it to never expire)');
  }
  if (isOutOfQuota(token)) {
    throw new BusinessError('the token quota is used up and cannot be enabled: raise its remaining quota first (or make it unlimited)');
  }
}

/** The status a stored enabled token has really reached (expired/exhausted), or undefined when unchanged. */
export function reachedStatus(token: TokenEntity): number | undefined {
  if (token.status !== TokenStatus.Enabled) return undefined;
  if (isPastExpiry(token)) return TokenStatus.Expired;
  if (isOutOfQuota(token)) return TokenStatus.Exhausted;
  return undefined;
}
