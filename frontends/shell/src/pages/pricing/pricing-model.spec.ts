import { describe, expect, it } from 'vitest';
import { comparePricing, fuzzyMatch, isAvailable, tokenPrices, type PricingRow } from './pricing-model';

const row = (model_name: string, patch: Partial<PricingRow> = {}): PricingRow => ({
  model_name,
  quota_type: 0,
  model_ratio: 1,
  completion_ratio: 1,
  model_price: 0,
  enable_groups: ['default'],
  ...patch,
});

describe('pricing model', () => {
  it('sorts by billing type, then gpt models first, then alphabetically', () => {
    const rows = [row('claude-3'), row('dall-e', { quota_type: 1 }), row('gpt-4o'), row('abab'), row('GPT-3.5')];
    expect(rows.sort(comparePricing).map((r) => r.model_name)).toEqual(['GPT-3.5', 'gpt-4o', 'abab', 'claude-3', 'dall-e']);
  });

  it('matches names fuzzily: typed characters in order, any case', () => {
    expect(fuzzyMatch('gpt-4o-mini', 'G4M')).toBe(true);
    expect(fuzzyMatch('gpt-4o-mini', '  ')).toBe(true);
    expect(fuzzyMatch('gpt-4o-mini', 'm4')).toBe(false);
  });

  it('is available in a listed group or everywhere with "all"', () => {
    expect(isAvailable(row('a', { enable_groups: ['vip'] }), 'default')).toBe(false);
    expect(isAvailable(row('a', { enable_groups: ['vip'] }), 'vip')).toBe(true);
    expect(isAvailable(row('a', { enable_groups: ['all'] }), 'default')).toBe(true);
  });

  it('prices per 1M tokens: ratio x 2 x group ratio, completion x completion ratio', () => {
    expect(tokenPrices(row('a', { model_ratio: 0.075, completion_ratio: 4 }), 2)).toEqual({ prompt: 0.3, completion: 1.2 });
  });
});
