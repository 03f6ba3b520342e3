import { quotaPerUnit, statusStore } from '../status/status-store';

/** 12345 -> "12.3k" (from 10 000), then M from 1e6 and B from 1e9. */
export function shortenNumber(value: number): string {
  const abs = Math.abs(value);
  const trim = (n: number) => String(Number(n.toFixed(1)));
  if (abs >= 1e9) return `${trim(value / 1e9)}B`;
  if (abs >= 1e6) return `${trim(value / 1e6)}M`;
  if (abs >= 1e4) return `${trim(value / 1e3)}k`;
  return String(value);
}

/** Decimal places that keep one quota unit visible: 500 000 per unit -> 6. */
function currencyDigits(perUnit: number): number {
  return Math.max(2, Math.ceil(Math.log10(perUnit)));
}

export function quotaToAmount(quota: number, perUnit = quotaPerUnit()): number {
  return quota / perUnit;
}

export function amountToQuota(amount: number, perUnit = quotaPerUnit()): number {
  return Math.round(amount * perUnit);
}

/** Quota as the site shows it: "$1.23" when display_in_currency is on, else the raw (shortened) number. */
export function renderQuota(quota: number, digits = 2): string {
  const status = statusStore.get();
  if (status.display_in_currency === false) return shortenNumber(quota);
  const perUnit = quotaPerUnit();
  const amount = quotaToAmount(quota, perUnit);
  const shown = Number(amount.toFixed(Math.max(digits, amount !== 0 && Math.abs(amount) < 0.01 ? currencyDigits(perUnit) : digits)));
  return `$${shown}`;
}
