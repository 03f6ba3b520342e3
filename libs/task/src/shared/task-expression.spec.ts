import { compileBillingExpr } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { freezeRequest, settleTaskExpression } from './task-expression.js';

describe('task expression snapshots', () => {
  it('keeps the body values and headers the expression names, a value holding media only as its size', () => {
    const program = compileBillingExpr(
      'tier("t", u("seconds") * (param("reference") != nil ? 0.6 : 1) * (param("tier") == "pro" ? 2 : 1) * (header("X-Fast") == "1" ? 3 : 1))',
    );
    const video = `data:video/mp4;base64,${'A'.repeat(10_000)}`;
    const body: Record<string, unknown> = { reference: { type: 'video_url', video_url: { url: video } }, tier: 'pro', prompt: 'a fox' };
    const frozen = freezeRequest(program, { param: (path) => body[path] ?? null, header: (name) => (name === 'x-fast' ? '1' : '') });
    expect(frozen).toEqual({
      params: { reference: expect.stringMatching(/^\[\d+ characters not kept\]$/), tier: 'pro' },
      headers: { 'x-fast': '1' },
    });
    expect(JSON.stringify(frozen).length).toBeLessThan(200);
    // Settlement reads the same answers: the reference is still there, so still × 0.6 × 2 × 3.
    const snapshot = { source: program.source, usage: { seconds: 5 }, request: frozen, quotaPerUsd: 500_000, minimumCharge: false };
    expect(settleTaskExpression(snapshot, { seconds: 4 })).toMatchObject({ quota: Math.round(4 * 0.6 * 2 * 3 * 500_000), tier: 't' });
  });
});
