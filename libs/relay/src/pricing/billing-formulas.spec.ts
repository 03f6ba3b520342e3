import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OptionKey } from '@gw/option';
import { optionsStub } from '../../../../test/support/options-stub.js';
import { worstCaseQuota } from './billing-formulas.js';
import { PricingService } from './pricing.service.js';

interface BillingCase {
  name: string;
  options: Partial<Record<OptionKey, unknown>>;
  model: string;
  group: string;
  usage: { promptTokens: number; completionTokens: number; cachedTokens: number };
  maxTokens: number;
  expected: { quota: number; preConsume: number } | null;
}

const dir = new URL('../../../../test/fixtures/billing/', import.meta.url);
const cases: BillingCase[] = readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .flatMap((file) => JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as BillingCase[]);

describe('billing golden fixtures (test/fixtures/billing)', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThan(20));

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const pricing = new PricingService(optionsStub(c.options));
    const info = pricing.resolve(c.model, c.group, c.group);
    const actual = info && {
      quota: pricing.settleQuota(info, c.usage),
      preConsume: pricing.preConsumeQuota(info, c.usage.promptTokens, c.maxTokens),
    };
    expect(actual ?? null).toEqual(c.expected);
  });
});

describe('the reservation (docs/billing.md)', () => {
  const ratio = { usePrice: false, modelPrice: -1, modelRatio: 2, completionRatio: 3, cacheRatio: 1, groupRatio: 1 };

  it('covers max_tokens priced as completion tokens, never below new-api’s estimate', () => {
    expect(worstCaseQuota(ratio, 10, 1000, 0)).toBe((10 + 3000) * 2);
    expect(worstCaseQuota(ratio, 10, 0, 500)).toBe(0);
    expect(worstCaseQuota({ ...ratio, usePrice: true, modelPrice: 0.01 }, 10, 1000, 0)).toBe(0);
    const pricing = new PricingService(optionsStub({ ModelRatio: { m: 2 }, CompletionRatio: { m: 3 } }));
    const info = pricing.resolve('m', 'default', 'default')!;
    expect(pricing.reserveQuota(info, 10, 1000)).toBe((500 + 3000) * 2);
    expect(pricing.reserveQuota(info, 10, 0)).toBe(pricing.preConsumeQuota(info, 10, 0));
  });
});
