import { describe, expect, it } from 'vitest';
import type { OptionKey, OptionService } from '@gw/option';
import { optionsStub } from '../../../../test/support/options-stub.js';
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
    ImageRatio: {},
    'billing_setting.minimum_charge': {},
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
      imageRatio: 1,
      groupRatio: 0.8,
    });
    expect(pricing.resolveOrUnset('m', 'default', 'default')).toMatchObject({ modelRatio: 2, completionRatio: 1 });
  });

  it('raises a positive charge of a model with billing_setting.minimum_charge to 10 quota; free stays free', () => {
    const base: Partial<Record<OptionKey, unknown>> = {
      GroupRatio: { default: 1, free: 0 },
      ModelRatio: { cheap: 0.001, other: 0.001, zero: 0 },
      ModelPrice: { call: 0.000001 },
      CompletionRatio: {},
      CreateCacheRatio: {},
      CacheRatio: {},
      QuotaPerUnit: 500_000,
      PreConsumedQuota: 0,
      'billing_setting.minimum_charge': { cheap: true, call: true, zero: true, other: false },
    };
    const floor = new PricingService(optionsStub(base));
    const usage = { promptTokens: 100, completionTokens: 20, cachedTokens: 0 };
    const cheap = floor.resolve('cheap', 'default', 'default')!;
    expect(cheap.minimumCharge).toBe(true);
    // 120 tokens × 0.001 = 0.12 → at least 1 by the ratio rule, then the minimum: 10.
    expect(floor.settleQuota(cheap, usage)).toBe(10);
    // The estimate too (5,000 tokens = 5 quota); an estimate of 0 stays 0.
    expect(floor.preConsumeQuota(cheap, 5000, 0)).toBe(10);
    expect(floor.preConsumeQuota(cheap, 100, 0)).toBe(0);
    expect(floor.settleQuota(cheap, { promptTokens: 0, completionTokens: 0, cachedTokens: 0 })).toBe(0);
    // A charge above the minimum is left as it is.
    expect(floor.settleQuota(cheap, { promptTokens: 20_000, completionTokens: 0, cachedTokens: 0 })).toBe(20);
    // Price mode (0.5 quota → 1 → 10) and the per-call path (images).
    const call = floor.resolve('call', 'default', 'default')!;
    expect(floor.settleQuota(call, usage)).toBe(10);
    expect(floor.perCallQuota(call, 2)).toBe(10);
    // No flag, or a free model or group: untouched.
    expect(floor.settleQuota(floor.resolve('other', 'default', 'default')!, usage)).toBe(1);
    expect(floor.settleQuota(floor.resolve('zero', 'default', 'default')!, usage)).toBe(0);
    expect(floor.settleQuota(floor.resolve('cheap', 'free', 'default')!, usage)).toBe(0);
    // Realtime responses too.
    const audio = { inputTokens: 10, outputTokens: 5, inputAudioTokens: 0, outputAudioTokens: 0, cachedTokens: 0, cachedAudioTokens: 0 };
    expect(floor.audioQuota(cheap, audio, { audio: 1, audioCompletion: 1 })).toBe(10);
  });

  it("bills Gemini audio input at new-api's own audio price (US$ per million × group ratio), out of the plain prompt", () => {
    const pricing = new PricingService(
      optionsStub({
        ModelRatio: { 'gemini-2.5-flash': 1, 'gemini-2.5-flash-lite': 1, 'gemini-1.5-pro': 1 },
        CompletionRatio: { 'gemini-2.5-flash': 2, 'gemini-2.5-flash-lite': 2, 'gemini-1.5-pro': 2 },
        GroupRatio: { default: 1, half: 0.5 },
        QuotaPerUnit: 500_000,
      }),
    );
    const usage = { promptTokens: 1000, completionTokens: 100, cachedTokens: 0, audioTokens: 400 };
    const flash = pricing.resolve('gemini-2.5-flash', 'default', 'default')!;
    expect(flash.audioInputPrice).toBe(1);
    // (600 + 100 × 2) × 1 + US$ 1/M × 400 × 500,000 = 800 + 200.
    expect(pricing.settleQuota(flash, usage)).toBe(1000);
    // Group ratio on both parts; the lite model takes the gemini-2.5-flash price, as new-api's prefixes do.
    expect(pricing.settleQuota(pricing.resolve('gemini-2.5-flash', 'half', 'default')!, usage)).toBe(500);
    expect(pricing.settleQuota(pricing.resolve('gemini-2.5-flash-lite', 'default', 'default')!, usage)).toBe(1000);
    // A model without an audio price keeps the audio in the prompt at the text price.
    expect(pricing.resolve('gemini-1.5-pro', 'default', 'default')).not.toHaveProperty('audioInputPrice');
    expect(pricing.settleQuota(pricing.resolve('gemini-1.5-pro', 'default', 'default')!, usage)).toBe(1200);
  });

  it("normalises only new-api's wildcard families", () => {
    expect(matchingModelName('gemini-2.5-pro-thinking-128')).toBe('gemini-2.5-pro-thinking-*');
    expect(matchingModelName('gemini-2.5-flash-lite-thinking-512')).toBe('gemini-2.5-flash-lite-thinking-*');
    expect(matchingModelName('gemini-2.5-flash')).toBe('gemini-2.5-flash');
    expect(matchingModelName('gpt-4o-gizmo-g-123')).toBe('gpt-4o-gizmo-*');
    expect(matchingModelName('gpt-4o-2024-08-06')).toBe('gpt-4o-2024-08-06');
  });
});
