import { describe, expect, it } from 'vitest';
import type { OptionService } from '@gw/option';
import { matchingModelName } from './model-names.js';
import { PricingService } from './pricing.service.js';

const service = (values: Record<string, unknown>) => new PricingService({ get: (key: string) => values[key] } as unknown as OptionService);

describe('PricingService', () => {
  const pricing = service({
    UserUsableGroups: { default: '默认分组', vip: 'vip分组' },
    GroupRatio: { default: 1, vip: 0.8 },
    GroupGroupRatio: { team: { vip: 0.5 } },
    ModelRatio: { m: 2 },
    ModelPrice: {},
    CompletionRatio: {},
    CreateCacheRatio: {},
    CacheRatio: {},
  });

  it("lists the usable groups plus the user's own group, labelled as new-api does", () => {
    expect(pricing.usableGroups('default')).toEqual({ default: '默认分组', vip: 'vip分组' });
    expect(pricing.usableGroups('team')).toEqual({ default: '默认分组', vip: 'vip分组', team: '用户分组' });
    expect(pricing.usableGroups('')).toEqual({ default: '默认分组', vip: 'vip分组' });
  });

  it('reads group ratios, 1 for unknown groups (inherited keys included)', () => {
    expect([pricing.groupRatio('vip'), pricing.groupRatio('nope'), pricing.groupRatio('constructor')]).toEqual([0.8, 1, 1]);
  });

  it("applies GroupGroupRatio: what the user's group pays in the using group, over GroupRatio", () => {
    expect([pricing.groupRatio('vip', 'team'), pricing.groupRatio('default', 'team'), pricing.groupRatio('vip', 'default')]).toEqual([
      0.5, 1, 0.8,
    ]);
    expect(pricing.groupRatio('vip', 'constructor')).toBe(0.8);
    expect(pricing.resolve('m', 'vip', 'team')).toMatchObject({ modelRatio: 2, groupRatio: 0.5, userGroupRatio: 0.5 });
    // No override: userGroupRatio stays absent (the consume log writes -1).
    expect(pricing.resolve('m', 'vip', 'default')).not.toHaveProperty('userGroupRatio');
  });

  it('prices unpriced models at the 37.5 sentinel only when asked to', () => {
    expect(pricing.resolve('gpt-4o-new', 'vip', 'default')).toBeUndefined();
    expect(pricing.resolveOrUnset('gpt-4o-new', 'vip', 'default')).toEqual({
      usePrice: false,
      modelPrice: -1,
      modelRatio: 37.5,
      completionRatio: 4,
      cacheRatio: 1,
      createCacheRatio: 1.25,
      groupRatio: 0.8,
    });
    expect(pricing.resolveOrUnset('m', 'default', 'default')).toMatchObject({ modelRatio: 2, completionRatio: 1 });
  });

  it("normalises only new-api's wildcard families", () => {
    expect(matchingModelName('gemini-2.5-pro-thinking-128')).toBe('gemini-2.5-pro-thinking-*');
    expect(matchingModelName('gemini-2.5-flash-lite-thinking-512')).toBe('gemini-2.5-flash-lite-thinking-*');
    expect(matchingModelName('gemini-2.5-flash')).toBe('gemini-2.5-flash');
    expect(matchingModelName('gpt-4o-gizmo-g-123')).toBe('gpt-4o-gizmo-*');
    expect(matchingModelName('gpt-4o-2024-08-06')).toBe('gpt-4o-2024-08-06');
  });
});
