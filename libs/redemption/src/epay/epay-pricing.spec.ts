import { describe, expect, it } from 'vitest';
import { centsToMoney, minimumAmount, moneyToCents, priceInCents, quotaForUnits, unitsBought, type TopUpPricing } from './epay-pricing.js';

const usd: TopUpPricing = { tokensDisplay: false, quotaPerUnit: 500000, price: 7.3, groupRatio: 1, minTopUp: 1 };

describe('top-up pricing', () => {
  it('prices amount × Price × group ratio, to the cent', () => {
    expect(centsToMoney(priceInCents(10, usd))).toBe('73.00');
    expect(centsToMoney(priceInCents(3, { ...usd, groupRatio: 0.9 }))).toBe('19.71');
    expect(centsToMoney(priceInCents(3, { ...usd, groupRatio: 0 }))).toBe('21.90');
    expect(centsToMoney(priceInCents(3, { ...usd, groupRatio: undefined }))).toBe('21.90');
  });

  it('converts quota amounts to units when the site displays tokens', () => {
    const tokens = { ...usd, tokensDisplay: true };
    expect(minimumAmount(tokens)).toBe(500000);
    expect(unitsBought(1_250_000, tokens)).toBe(2);
    expect(centsToMoney(priceInCents(1_000_000, tokens))).toBe('14.60');
    expect(centsToMoney(priceInCents(750_000, tokens))).toBe('7.30');
    expect(minimumAmount({ ...usd, minTopUp: 5 })).toBe(5);
    expect(minimumAmount({ ...usd, minTopUp: 0 })).toBe(1);
  });

  it('parses callback money strictly', () => {
    expect(moneyToCents('73.00')).toBe(7300);
    expect(moneyToCents('73.1')).toBe(7310);
    expect(moneyToCents('73')).toBe(7300);
    expect(moneyToCents('-1')).toBeUndefined();
    expect(moneyToCents('7.301')).toBeUndefined();
    expect(moneyToCents('1e3')).toBeUndefined();
    expect(moneyToCents(undefined)).toBeUndefined();
  });

  it('credits units × QuotaPerUnit', () => {
    expect(quotaForUnits(10, 500000)).toBe(5_000_000);
  });
});
