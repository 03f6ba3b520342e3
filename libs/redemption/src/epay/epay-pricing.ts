/**
 * new-api's online top-up arithmetic. `amount` is what the user typed: currency units (USD/CNY display),
 * or quota when the site displays TOKENS, in which case it is converted to whole units first.
 */
export interface TopUpPricing {
  tokensDisplay: boolean;
  quotaPerUnit: number;
  price: number;
  /** TopupGroupRatio[user's group]; 0 or missing counts as 1. */
  groupRatio: number | undefined;
  minTopUp: number;
}

/** The least amount accepted, in what the user types. */
export function minimumAmount(p: TopUpPricing): number {
  const min = Math.max(1, p.minTopUp);
  return p.tokensDisplay ? min * p.quotaPerUnit : min;
}

/** Whole currency units bought (what `top_ups.amount` stores). */
export function unitsBought(amount: number, p: TopUpPricing): number {
  return p.tokensDisplay ? Math.floor(amount / p.quotaPerUnit) : amount;
}

/** The price in cents: units bought × Price × group ratio, rounded to the cent (a part unit is never charged). */
export function priceInCents(amount: number, p: TopUpPricing): number {
  const units = unitsBought(amount, p);
  const ratio = p.groupRatio && p.groupRatio > 0 ? p.groupRatio : 1;
  return Math.round(units * p.price * ratio * 100);
}

export function centsToMoney(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** A callback's `money` ("12.30", "12.3", "12") in cents, or undefined when it is not a plain amount. */
export function moneyToCents(money: string | undefined): number | undefined {
  if (!money || !/^\d{1,12}(\.\d{1,2})?$/.test(money)) return undefined;
  const [whole, fraction = ''] = money.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

/** Quota credited for a paid order: units × QuotaPerUnit. */
export function quotaForUnits(units: number, quotaPerUnit: number): number {
  return Math.round(units * quotaPerUnit);
}
