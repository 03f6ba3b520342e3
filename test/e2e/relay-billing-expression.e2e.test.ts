import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { testDatabases } from '../support/databases.js';
import { type RelayFixture, startRelayFixture } from './relay-fixture.js';

/**
 * new-api's tiered expression billing (billing_setting.billing_mode / billing_expr) through the official client:
 * the expression prices the request in US$ per million tokens by tier, cache tokens and request headers, in place
 * of the model's ratio; its tier is logged; a request it cannot price is the client's 400, nothing charged.
 */
const MODEL = 'expr-chat';
const EXPR =
  '(len <= 100 ? tier("short", p * 2 + c * 8 + cr * 0.5) : tier("long", p * 4 + c * 16)) * (header("x-priority") == "high" ? 2 : 1) * (param("metadata.weight") ?? 1)';
/** Pictures at a fixed price each, × 4 in high quality (new-api's image_count and request multipliers). */
const DRAW = 'expr-draw';
const DRAW_EXPR = 'tier("image", fixed(0.04)) * image_count * (param("quality") == "high" ? 4 : 1)';
/** US$ per million tokens → quota at QuotaPerUnit 500000, rounded half away from zero. */
const quotaOf = (usd: number) => Math.round(usd / 2);

describe.each(testDatabases())('relay: billing expressions on %s', (kind) => {
  let f: RelayFixture;
  let openai: OpenAI;
  const ask = [{ role: 'user' as const, content: 'hi' }];

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('billing_setting.billing_mode', { [MODEL]: 'tiered_expr', [DRAW]: 'tiered_expr' });
    await f.setOption('billing_setting.billing_expr', { [MODEL]: EXPR, [DRAW]: DRAW_EXPR });
    // No ratio or price: the expression alone prices the model.
    await f.channel({ key: 'sk-expr', models: `${MODEL},${DRAW}` });
    openai = f.openai((await f.token({ unlimited_quota: true })).key);
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('charges the short tier, cache reads at their own price, and logs the tier', async () => {
    f.up.script({ path: '/v1/chat/completions', usage: { prompt_tokens: 50, completion_tokens: 20, cached_tokens: 10 } });
    const before = await f.quota(f.user.id);
    const { response } = await openai.chat.completions.create({ model: MODEL, messages: ask }).withResponse();
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    // p = 50 − 10 cached: 40×2 + 20×8 + 10×0.5 = 245 → 122.5 → 123.
    expect(row).toMatchObject({ modelName: MODEL, promptTokens: 50, completionTokens: 20, quota: 123 });
    const other = typeof row.other === 'string' ? JSON.parse(row.other) : row.other;
    expect(other).toMatchObject({ billing_mode: 'tiered_expr', matched_tier: 'short', estimated_tier: 'long', model_ratio: 0 });
    // new-api's request_rules: the request multiplier of the expression, and that it did not apply.
    expect(other.request_rules).toEqual([{ cond: 'header("x-priority") == "high"', multiplier: 2, matched: false }]);
    expect(other).not.toHaveProperty('billing_expr');
    expect(before - (await f.quota(f.user.id))).toBe(123);
  });

  it('switches tier on the context length in a stream, billed on the stream usage', async () => {
    f.up.script({ path: '/v1/chat/completions', usage: { prompt_tokens: 300, completion_tokens: 10 } });
    const before = await f.quota(f.user.id);
    const stream = await openai.chat.completions.create({ model: MODEL, messages: ask, stream: true });
    for await (const _ of stream);
    const [row] = await f.logCount({ modelName: MODEL, isStream: true }, 1);
    expect(row).toMatchObject({ promptTokens: 300, completionTokens: 10, quota: quotaOf(300 * 4 + 10 * 16) });
    const other = typeof row.other === 'string' ? JSON.parse(row.other) : row.other;
    expect(other.matched_tier).toBe('long');
    expect(before - (await f.quota(f.user.id))).toBe(quotaOf(300 * 4 + 10 * 16));
  });

  it('refuses a request its expression cannot price with 400 model_price_error, calling nothing and charging nothing', async () => {
    const before = await f.quota(f.user.id);
    const error = await openai.chat.completions.create({ model: MODEL, messages: ask, metadata: { weight: 'heavy' } }).then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    expect(error?.status).toBe(400);
    expect(error?.code).toBe('model_price_error');
    expect(error?.message).toMatch(/the billing expression of this model cannot price the request: \* needs a number, got string/);
    expect(f.up.requests).toHaveLength(0);
    expect(await f.quota(f.user.id)).toBe(before);
  });

  it('charges the long tier × 2 for the high-priority header, × a number read from the body', async () => {
    f.up.script({ path: '/v1/chat/completions', usage: { prompt_tokens: 300, completion_tokens: 10 } });
    const { response } = await openai.chat.completions
      .create({ model: MODEL, messages: ask }, { headers: { 'X-Priority': 'high' } })
      .withResponse();
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ quota: quotaOf((300 * 4 + 10 * 16) * 2) });
    const other = typeof row.other === 'string' ? JSON.parse(row.other) : row.other;
    expect(other.matched_tier).toBe('long');
    expect(other.request_rules).toEqual([{ cond: 'header("x-priority") == "high"', multiplier: 2, matched: true }]);

    f.up.script({ path: '/v1/chat/completions', usage: { prompt_tokens: 300, completion_tokens: 10 } });
    // The SDK types metadata values as strings; the gateway reads whatever JSON the body holds.
    const weighted = await openai.chat.completions
      .create(
        { model: MODEL, messages: ask, metadata: { weight: 3 } as unknown as Record<string, string> },
        { headers: { 'X-Priority': 'high' } },
      )
      .withResponse();
    expect(await f.settled(weighted.response.headers.get('x-oneapi-request-id'))).toMatchObject({
      quota: quotaOf((300 * 4 + 10 * 16) * 2 * 3),
    });
  });

  it('lists the model as priced, and refuses an expression that cannot run when saved', async () => {
    expect((await openai.models.list()).data.map((m) => m.id)).toContain(MODEL);
    const bad = await f.root.put('/api/option/', {
      key: 'billing_setting.billing_expr',
      value: JSON.stringify({ [MODEL]: 'tier("x", p - 5000)' }),
    });
    expect(bad.body.success).toBe(false);
    expect(bad.body.message).toMatch(/expression of expr-chat: with p=c=0: the expression gave a negative price/);
    const mode = await f.root.put('/api/option/', { key: 'billing_setting.billing_mode', value: JSON.stringify({ [MODEL]: 'tiers' }) });
    expect(mode.body.message).toMatch(/mode of expr-chat must be one of ratio, tiered_expr/);
  });

  it('raises a charge below 10 quota to 10 for a model with billing_setting.minimum_charge, and refuses a flag that is not a boolean', async () => {
    await f.setOption('billing_setting.minimum_charge', { [MODEL]: true });
    try {
      f.up.script({ path: '/v1/chat/completions', usage: { prompt_tokens: 2, completion_tokens: 1 } });
      const before = await f.quota(f.user.id);
      const { response } = await openai.chat.completions.create({ model: MODEL, messages: ask }).withResponse();
      // 2×2 + 1×8 = 12 per million → 6 quota, raised to 10.
      expect(await f.settled(response.headers.get('x-oneapi-request-id'))).toMatchObject({ quota: 10 });
      expect(before - (await f.quota(f.user.id))).toBe(10);
      const bad = await f.root.put('/api/option/', { key: 'billing_setting.minimum_charge', value: JSON.stringify({ [MODEL]: 'yes' }) });
      expect(bad.body).toMatchObject({ success: false, message: expect.stringMatching(/value of expr-chat must be true or false/) });
    } finally {
      await f.setOption('billing_setting.minimum_charge', {});
    }
  });

  it('prices pictures per request: a fixed price × image_count × the quality rule, logged as billed per request', async () => {
    const before = await f.quota(f.user.id);
    const { response } = await openai.images.generate({ model: DRAW, prompt: 'a cat', n: 3, quality: 'high' }).withResponse();
    // US$ 0.04 × 3 × 4 = 0.48 → 240,000 quota.
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ modelName: DRAW, quota: 240_000 });
    const other = typeof row.other === 'string' ? JSON.parse(row.other) : row.other;
    expect(other).toMatchObject({
      billing_mode: 'tiered_expr',
      matched_tier: 'image',
      billing_unit: 'request',
      fixed_price: 0.04,
      estimated_billing_unit: 'request',
      estimated_fixed_price: 0.04,
      request_rules: [{ cond: 'param("quality") == "high"', multiplier: 4, matched: true }],
    });
    expect(before - (await f.quota(f.user.id))).toBe(240_000);
    // A fixed price added to tokens in one tier is refused when saved, as new-api does.
    const mixed = await f.root.put('/api/option/', {
      key: 'billing_setting.billing_expr',
      value: JSON.stringify({ [MODEL]: EXPR, [DRAW]: 'tier("image", fixed(0.04) + p)' }),
    });
    expect(mixed.body).toMatchObject({
      success: false,
      message: expect.stringMatching(/expression of expr-draw: fixed\(\) is the whole price/),
    });
  });
});
