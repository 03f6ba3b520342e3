import { describe, expect, it } from 'vitest';
import type { TaskPrice } from '../shared/task-gate.js';
import { finalTaskQuota, submitQuota } from './task-settlement.js';
import type { TaskEntity } from './task.entity.js';

const row = (quota: number, context: NonNullable<NonNullable<TaskEntity['privateData']>['billing_context']>) =>
  ({ quota, privateData: { billing_context: context } }) as TaskEntity;

describe('finalTaskQuota', () => {
  it('re-prices a ratio-priced model from the reported tokens, with the group and other ratios of the submit', () => {
    const task = row(1_000, { model_ratio: 1.5, group_ratio: 2, per_call_billing: false, other_ratios: { video_input: 0.5 } });
    expect(finalTaskQuota(task, { upstreamId: 'x', status: 'SUCCESS', progress: '', failReason: '', totalTokens: 10_001 })).toBe(15_001);
  });

  it('keeps a fixed-price task at its price whatever tokens are reported', () => {
    const task = row(100_000, { model_price: 0.2, group_ratio: 1, per_call_billing: true, per_call_quota: 100_000 });
    expect(finalTaskQuota(task, { upstreamId: 'x', status: 'SUCCESS', progress: '', failReason: '', totalTokens: 50 })).toBeUndefined();
  });

  it('re-prices with the final ratios in place of the estimates (seconds really rendered)', () => {
    const task = row(400_000, { per_call_billing: true, per_call_quota: 50_000, other_ratios: { seconds: 8, size: 1 } });
    const report = { upstreamId: 'x', status: 'SUCCESS', progress: '', failReason: '', finalRatios: { seconds: 4 } };
    expect(finalTaskQuota(task, report)).toBe(200_000);
    expect(finalTaskQuota(task, { ...report, finalRatios: { seconds: 8 } })).toBeUndefined();
  });

  it('leaves a task without a billing snapshot (an old new-api row) alone', () => {
    expect(
      finalTaskQuota({ quota: 5 } as TaskEntity, { upstreamId: 'x', status: 'SUCCESS', progress: '', failReason: '', totalTokens: 9 }),
    ).toBeUndefined();
  });

  it('settles a task expression on the submit facts overlaid by the final ones, with the frozen request and conversion', () => {
    const source =
      'u("resolution") == "4k" ? tier("4k", u("seconds") * 0.6) : tier("hd", u("seconds") * 0.4 * (param("audio") == true ? 2 : 1))';
    const billing_expr = {
      source,
      usage: { seconds: 8, resolution: '720p' },
      request: { params: { audio: true }, headers: {} },
      quotaPerUsd: 500_000,
      minimumCharge: false,
    };
    // At submit: 8 s × 0.4 × 2 = US$ 6.4 = 3,200,000 quota. The provider rendered 5 s: 2,000,000.
    const task = row(3_200_000, { billing_expr });
    const report = { upstreamId: 'x', status: 'SUCCESS', progress: '', failReason: '' };
    expect(finalTaskQuota(task, { ...report, usage: { seconds: 5 } })).toBe(2_000_000);
    expect(finalTaskQuota(task, report)).toBeUndefined();
    // An expression that cannot run on the final facts keeps the submit charge.
    const broken = row(10, { billing_expr: { ...billing_expr, source: 'tier("x", u("seconds") - 100)' } });
    expect(finalTaskQuota(broken, { ...report, usage: { seconds: 5 } })).toBeUndefined();
  });

  it('raises a settlement below 10 quota to 10 when the model had a minimum charge at submit', () => {
    const task = row(40, { per_call_billing: true, per_call_quota: 5, other_ratios: { seconds: 8 }, minimum_charge: true });
    const report = { upstreamId: 'x', status: 'SUCCESS', progress: '', failReason: '', finalRatios: { seconds: 1 } };
    expect(finalTaskQuota(task, report)).toBe(10);
    const expr = {
      source: 'tier("s", u("seconds") * 0.000001)',
      usage: { seconds: 8 },
      request: { params: {}, headers: {} },
      quotaPerUsd: 500_000,
      minimumCharge: true,
    };
    expect(finalTaskQuota(row(10, { billing_expr: expr }), { ...report, usage: { seconds: 2 } })).toBeUndefined();
    expect(finalTaskQuota(row(10, { billing_expr: { ...expr, minimumCharge: false } }), { ...report, usage: { seconds: 2 } })).toBe(1);
    expect(finalTaskQuota(row(10, { billing_expr: expr }), { ...report, usage: { seconds: 0 } })).toBe(0);
  });

  it("charges a submit its expression's quota, else the per-call price × the plan's ratios, under the minimum charge", () => {
    const perCall: TaskPrice = { quota: 3, modelPrice: 0.000006, groupRatio: 1, byRatio: false, minimumCharge: false };
    expect(submitQuota(perCall, { seconds: 2 })).toBe(6);
    expect(submitQuota({ ...perCall, minimumCharge: true }, { seconds: 2 })).toBe(10);
    expect(submitQuota({ ...perCall, minimumCharge: true }, { seconds: 0 })).toBe(0);
    expect(submitQuota({ ...perCall, minimumCharge: true }, { seconds: 4 })).toBe(12);
    const expr = { source: 'tier("t", u("seconds"))', usage: { seconds: 4 }, request: { params: {}, headers: {} }, quotaPerUsd: 1 };
    const byExpr: TaskPrice = { ...perCall, quota: 40, expr: { ...expr, minimumCharge: false, quota: 40, tier: 't' } };
    // The expression's quota is the whole task's: no ratio applies on top.
    expect(submitQuota(byExpr, { seconds: 4 })).toBe(40);
  });
});
