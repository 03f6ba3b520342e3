import { describe, expect, it } from 'vitest';
import { formatQuota, type QuotaDisplay } from './quota-format.js';

const usd: QuotaDisplay = { displayInCurrency: true, displayType: 'USD', quotaPerUnit: 500000, usdExchangeRate: 7.3 };

describe('formatQuota', () => {
  it('renders dollars with two decimals like the console', () => {
    expect(formatQuota(100000, usd)).toBe('$0.20');
    expect(formatQuota(500000, usd)).toBe('$1.00');
    expect(formatQuota(0, usd)).toBe('$0.00');
    expect(formatQuota(1, usd)).toBe('$0.01');
  });

  it('converts to yuan for CNY and shows raw numbers for TOKENS or without currency display', () => {
    expect(formatQuota(500000, { ...usd, displayType: 'CNY' })).toBe('¥7.30');
    expect(formatQuota(123456, { ...usd, displayType: 'TOKENS' })).toBe('123456');
    expect(formatQuota(123456, { ...usd, displayInCurrency: false })).toBe('123456');
  });
});
