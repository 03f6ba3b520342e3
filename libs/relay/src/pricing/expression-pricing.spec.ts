import type { ExprRequest } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { optionsStub } from '../../../../test/support/options-stub.js';
import { RelayError } from '../pipeline/relay-error.js';
import { PricingService } from './pricing.service.js';

const TIERED = 'len <= 100 ? tier("short", p * 2 + c * 8 + cr * 0.5) : tier("long", p * 4 + c * 16)';
const request = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}): ExprRequest => ({
  param: (path) => body[path] ?? null,
  header: (name) => headers[name] ?? '',
});
const pricing = (expressions: Record<string, string>, extra: Record<string, unknown> = {}) =>
  new PricingService(
    optionsStub({
      QuotaPerUnit: 500_000,
      ModelRatio: { tiered: 1 },
      GroupRatio: { default: 1, vip: 0.5 },
      'billing_setting.billing_mode': Object.fromEntries(Object.keys(expressions).map((model) => [model, 'tiered_expr'])),
      'billing_setting.billing_expr': expressions,
      ...extra,
    }),
  );

describe('expression billing (billing_setting tiered_expr)', () => {
  it('prices by the expression instead of the ratio, tokens split as the expression names them', () => {
    const service = pricing({ tiered: TIERED });
    const info = service.resolve('tiered', 'default', 'default', request())!;
    expect(info.expr?.program.source).toBe(TIERED);
    // short: p = 50 − 10 cached; (40×2 + 20×8 + 10×0.5) = 245 US$/M → 245/1e6 × 500000 = 122.5 → 123.
    expect(service.settleQuota(info, { promptTokens: 50, completionTokens: 20, cachedTokens: 10 })).toBe(123);
    expect(info.expr?.tier).toBe('short');
    // long: cr is not named in that branch, but the expression names it: 190 + 10 → p 190 at $4.
    expect(service.settleQuota(info, { promptTokens: 200, completionTokens: 20, cachedTokens: 10 })).toBe(
      Math.round((190 * 4 + 20 * 16) / 2),
    );
    expect(info.expr?.tier).toBe('long');
    // The group ratio applies after.
    const vip = service.resolve('tiered', 'vip', 'vip', request())!;
    expect(service.settleQuota(vip, { promptTokens: 200, completionTokens: 20, cachedTokens: 0 })).toBe(Math.round((800 + 320) / 2 / 2));
  });

  it('leaves cache tokens in p at the prompt price when the expression does not name them', () => {
    const service = pricing({ flat: 'tier("base", p * 2 + c * 8)' });
    const info = service.resolve('flat', 'default', 'default', request())!;
    expect(service.settleQuota(info, { promptTokens: 50, completionTokens: 20, cachedTokens: 10 })).toBe(Math.round((100 + 160) / 2));
  });

  it('reserves on the prompt estimate (at least PreConsumedQuota) with max_tokens as completion', () => {
    const service = pricing({ tiered: TIERED }, { PreConsumedQuota: 30 });
    const info = service.resolve('tiered', 'default', 'default', request())!;
    expect(service.reserveQuota(info, 10, 100)).toBe(Math.round((30 * 2 + 100 * 8) / 2));
    expect(info.expr?.estimatedTier).toBe('short');
  });

  it('reads the request, and refuses one it cannot price with 400 model_price_error', () => {
    const weighted = '(param("metadata") ?? 1) * tier("w", p)';
    const service = pricing({ weighted }, { PreConsumedQuota: 0 });
    const info = service.resolve('weighted', 'default', 'default', request({ metadata: 4 }))!;
    expect(service.reserveQuota(info, 100, 0)).toBe(Math.round((4 * 100) / 2));
    const bad = service.resolve('weighted', 'default', 'default', request({ metadata: 'heavy' }))!;
    const refusal = (() => {
      try {
        service.reserveQuota(bad, 100, 0);
      } catch (error) {
        return error;
      }
    })() as RelayError;
    expect(refusal).toBeInstanceOf(RelayError);
    expect(refusal).toMatchObject({ httpStatus: 400, errorCode: 'model_price_error' });
    expect(refusal.message).toMatch(/\* needs a number, got string/);
  });

  it('charges the reservation when the expression cannot price the final usage, saying why', () => {
    const service = pricing({ late: 'c > 5000 ? (param("metadata") ?? 1) * c : tier("base", p + c)' });
    const info = service.resolve('late', 'default', 'default', request({ metadata: 'heavy' }))!;
    const reserved = service.reserveQuota(info, 100, 0);
    expect(service.settleQuota(info, { promptTokens: 100, completionTokens: 6000, cachedTokens: 0 })).toBe(reserved);
    expect(info.expr?.failure).toMatch(/\* needs a number/);
  });

  it('charges a fixed() tier with no tokens at all, and records that the tier was priced per request', () => {
    const service = pricing({ call: 'tier("request", fixed(0.01))' });
    const info = service.resolve('call', 'default', 'default', request())!;
    expect(service.reserveQuota(info, 10, 0)).toBe(5000);
    expect(service.settleQuota(info, { promptTokens: 0, completionTokens: 0, cachedTokens: 0 })).toBe(5000);
    expect(info.expr).toMatchObject({ estimatedFixedPrice: 0.01, fixedPrice: 0.01, tier: 'request' });
  });

  it("multiplies a per-picture price by the request's image_count, on the reservation and the settlement", () => {
    const service = pricing({ draw: 'tier("image", fixed(0.04)) * image_count * (param("quality") == "high" ? 4 : 1)' });
    const info = service.resolve('draw', 'default', 'default', { ...request({ quality: 'high' }), imageCount: 3 })!;
    // 0.04 × 3 × 4 = US$ 0.48 = 240,000 quota.
    expect(service.reserveQuota(info, 10, 0)).toBe(240_000);
    expect(service.settleQuota(info, { promptTokens: 10, completionTokens: 0, cachedTokens: 0 })).toBe(240_000);
    expect(info.expr?.rules).toEqual([{ cond: 'param("quality") == "high"', multiplier: 4, matched: true }]);
  });

  it('keeps ratio pricing where no request is given (Realtime, tasks), for the ratio mode, and for a broken saved expression', () => {
    const service = pricing(
      { tiered: TIERED, broken: 'p *' },
      { 'billing_setting.billing_mode': { tiered: 'tiered_expr', broken: 'tiered_expr', other: 'ratio' } },
    );
    expect(service.resolve('tiered', 'default', 'default')).toMatchObject({ modelRatio: 1 });
    expect(service.resolve('tiered', 'default', 'default')?.expr).toBeUndefined();
    expect(service.resolve('broken', 'default', 'default', request())).toBeUndefined();
    expect(service.billingExpr('other')).toBeUndefined();
  });

  it('prices each Realtime response on its own: audio apart as ai/ao, and a failed run leaves nothing behind', () => {
    const service = pricing({ rt: 'tier("audio", p >= 100 ? p * 2 + c * 8 + ai * 40 + ao * 80 : -1)' });
    const info = service.resolve('rt', 'default', 'default', request())!;
    const ratios = { audio: 1, audioCompletion: 1 };
    const response = (input: number, output: number) => ({
      inputTokens: input,
      outputTokens: output,
      inputAudioTokens: input / 2,
      outputAudioTokens: output / 2,
      cachedTokens: 0,
      cachedAudioTokens: 0,
    });
    // p = 50 − 25 audio < 100: the price is negative, the run fails and charges the reservation (none here).
    expect(service.audioQuota(info, response(50, 10), ratios)).toBe(0);
    expect(info.expr?.failure).toMatch(/negative price/);
    // p = 1000 − 500 = 500: (500 × 2 + 100 × 8 + 500 × 40 + 100 × 80) = 29,800 US$/M → 14,900 quota.
    expect(service.audioQuota(info, response(1000, 200), ratios)).toBe(14_900);
    expect(info.expr).toMatchObject({ tier: 'audio', failure: undefined });
  });
});
