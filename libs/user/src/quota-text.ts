import type { OptionService } from '@gw/option';

/** Formats a quota amount as new-api's LogQuota does (currency or plain points), for messages and log rows. */
export function formatQuota(options: OptionService, quota: number): string {
  if (options.get('DisplayInCurrencyEnabled')) return `$${(quota / options.get('QuotaPerUnit')).toFixed(6)}`;
  return `${quota} quota`;
}
