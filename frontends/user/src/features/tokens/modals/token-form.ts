import { nowSeconds } from '@console/kit';
import type { Token, TokenInput } from '../api';
import { batchNames } from './token-batch';

export interface TokenForm {
  name: string;
  group: string;
  /** null = never expires. */
  expiresAt: Date | null;
  remainQuota: number;
  unlimited: boolean;
  count: number;
  modelLimits: string[];
  allowIps: string;
  /** Shown and sent for `auto` tokens only (new-api's console). */
  crossGroupRetry: boolean;
}

/** The group whose tokens walk the user's auto groups. */
export const AUTO_GROUP = 'auto';

/** Spec 001 §9: new tokens start with 500 000 quota (US$1) and never expire. */
export const NEW_TOKEN: TokenForm = {
  name: '',
  group: '',
  expiresAt: null,
  remainQuota: 500_000,
  unlimited: false,
  count: 1,
  modelLimits: [],
  allowIps: '',
  crossGroupRetry: false,
};

export const QUOTA_PRESETS = [500_000, 5_000_000, 25_000_000, 50_000_000, 250_000_000, 500_000_000];
export const BATCH_COUNTS = [10, 20, 30, 100];

const HOUR = 3600;
export const EXPIRY_SHORTCUTS: { key: string; seconds: number | null }[] = [
  { key: 'never', seconds: null },
  { key: 'hour', seconds: HOUR },
  { key: 'day', seconds: 24 * HOUR },
  { key: 'month', seconds: 30 * 24 * HOUR },
];

export function expiryFromShortcut(seconds: number | null): Date | null {
  return seconds === null ? null : new Date((nowSeconds() + seconds) * 1000);
}

export function formFromToken(token: Token): TokenForm {
  return {
    name: token.name,
    group: token.group,
    expiresAt: token.expired_time === -1 ? null : new Date(token.expired_time * 1000),
    remainQuota: token.remain_quota,
    unlimited: token.unlimited_quota,
    count: 1,
    modelLimits: token.model_limits ? token.model_limits.split(',').filter(Boolean) : [],
    allowIps: token.allow_ips ?? '',
    crossGroupRetry: token.cross_group_retry === true,
  };
}

export type FormProblem = 'nameRequired' | 'expiryInvalid' | 'countInvalid';

export function validate(form: TokenForm, creating: boolean): FormProblem | null {
  if (creating && !form.name.trim()) return 'nameRequired';
  if (form.expiresAt && Number.isNaN(form.expiresAt.getTime())) return 'expiryInvalid';
  if (creating && (!Number.isInteger(form.count) || form.count < 1)) return 'countInvalid';
  return null;
}

/**
 * POST /api/token/ creates one token (new-api has no count field), so "create N" sends N requests, named
 * as new-api's console names them (spec 001 §5).
 */
export function batchInputs(form: TokenForm): TokenInput[] {
  const base = toInput(form);
  return batchNames(base.name, form.count).map((name) => ({ ...base, name }));
}

export function toInput(form: TokenForm): TokenInput {
  return {
    name: form.name.trim(),
    group: form.group,
    expired_time: form.expiresAt ? Math.floor(form.expiresAt.getTime() / 1000) : -1,
    remain_quota: Math.trunc(form.remainQuota) || 0,
    unlimited_quota: form.unlimited,
    model_limits_enabled: form.modelLimits.length > 0,
    model_limits: form.modelLimits.join(','),
    allow_ips: form.allowIps,
    cross_group_retry: form.group === AUTO_GROUP && form.crossGroupRetry,
  };
}
