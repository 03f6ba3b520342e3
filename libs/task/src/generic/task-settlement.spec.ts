import { describe, expect, it } from 'vitest';
import { finalTaskQuota } from './task-settlement.js';
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
});
