import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { testDatabases } from '../support/databases.js';
import { type RelayFixture, startRelayFixture } from './relay-fixture.js';

/**
 * new-api's ImageRatio: input image tokens the provider reports (`prompt_tokens_details.image_tokens`) are taken
 * out of the plain prompt and billed at the model's image ratio; a billing expression prices them as `img`.
 */
const VISION = 'vision-ratio';
const VISION_EXPR = 'vision-expr';

describe.each(testDatabases())('relay: input image tokens on %s', (kind) => {
  let f: RelayFixture;
  let openai: OpenAI;
  const ask = [{ role: 'user' as const, content: 'what is in the picture?' }];
  const other = (row: any) => (typeof row.other === 'string' ? JSON.parse(row.other) : row.other);

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelRatio', { [VISION]: 1 });
    await f.setOption('CompletionRatio', { [VISION]: 4 });
    await f.setOption('ImageRatio', { [VISION]: 2.5 });
    await f.setOption('billing_setting.billing_mode', { [VISION_EXPR]: 'tiered_expr' });
    await f.setOption('billing_setting.billing_expr', { [VISION_EXPR]: 'tier("base", p * 2 + img * 8 + c * 10)' });
    await f.channel({ key: 'sk-vision', models: `${VISION},${VISION_EXPR}` });
    openai = f.openai((await f.token({ unlimited_quota: true })).key);
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('bills reported image tokens at ImageRatio, apart from cached and plain prompt tokens, and logs them', async () => {
    f.up.script({
      path: '/v1/chat/completions',
      usage: { prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 100, image_tokens: 600 },
    });
    const before = await f.quota(f.user.id);
    const { response } = await openai.chat.completions.create({ model: VISION, messages: ask }).withResponse();
    // plain 1000 − 100 cached − 600 image = 300; 300 + 100 × 1 (cache ratio) + 600 × 2.5 + 50 × 4 = 2,100.
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 1000, completionTokens: 50, quota: 2100 });
    expect(other(row)).toMatchObject({ image: true, image_ratio: 2.5, image_output: 600, cache_tokens: 100 });
    expect(before - (await f.quota(f.user.id))).toBe(2100);

    // Without image tokens in the usage, nothing of the image fields.
    f.up.reset();
    f.up.script({ path: '/v1/chat/completions', usage: { prompt_tokens: 1000, completion_tokens: 50 } });
    const plain = await openai.chat.completions.create({ model: VISION, messages: ask }).withResponse();
    const plainRow = await f.settled(plain.response.headers.get('x-oneapi-request-id'));
    expect(plainRow).toMatchObject({ quota: 1000 + 200 });
    expect(other(plainRow)).not.toHaveProperty('image');
  });

  it('prices image tokens as img in a billing expression, taken out of p', async () => {
    f.up.script({ path: '/v1/chat/completions', usage: { prompt_tokens: 1000, completion_tokens: 50, image_tokens: 600 } });
    const { response } = await openai.chat.completions.create({ model: VISION_EXPR, messages: ask }).withResponse();
    // (400 × 2 + 600 × 8 + 50 × 10) = 6,100 US$/M → 3,050 quota at QuotaPerUnit 500,000.
    expect(await f.settled(response.headers.get('x-oneapi-request-id'))).toMatchObject({ quota: 3050 });
  });

  it('refuses an image ratio that is not a non-negative number', async () => {
    const bad = await f.root.put('/api/option/', { key: 'ImageRatio', value: JSON.stringify({ [VISION]: -1 }) });
    expect(bad.body).toMatchObject({
      success: false,
      message: expect.stringMatching(/value of vision-ratio must be a non-negative number/),
    });
  });
});
