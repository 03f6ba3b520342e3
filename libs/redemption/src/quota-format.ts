import type { OptionService } from '@gw/option';

export interface QuotaDisplay {
  displayInCurrency: boolean;
  displayType: 'USD' | 'CNY' | 'TOKENS';
  quotaPerUnit: number;
  usdExchangeRate: number;
}

/**
 * A quota as new-api's console renders it (`renderQuota`): `$0.20` for 100 000 at 500 000 per dollar,
 * `¥` × the exchange rate for CNY, the plain number for TOKENS or when currency display is off. A
 * positive quota too small for two decimals shows the smallest non-zero amount rather than `$0.00`.
 */
export function formatQuota(quota: number, display: QuotaDisplay): string {
  if (!display.displayInCurrency || display.displayType === 'TOKENS') return String(quota);
  const [symbol, rate] = display.displayType === 'CNY' ? ['¥', display.usdExchangeRate] : ['$', 1];
  const amount = (quota / display.quotaPerUnit) * rate;
  const fixed = amount.toFixed(2);
  if (Number(fixed) === 0 && amount > 0) return `${symbol}0.01`;
  return `${symbol}${fixed}`;
}

/** The site's current display settings. */
export function quotaDisplay(options: OptionService): QuotaDisplay {
  return {
    displayInCurrency: options.get('DisplayInCurrencyEnabled'),
    displayType: options.get('general_setting.quota_display_type'),
    quotaPerUnit: options.get('QuotaPerUnit'),
    usdExchangeRate: options.get('USDExchangeRate'),
  };
}
