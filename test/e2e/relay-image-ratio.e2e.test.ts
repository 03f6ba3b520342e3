import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { testDatabases } from '../support/databases.js';
import { type RelayFixture, startRelayFixture } from './relay-fixture.js';

/**
 * new-api's ImageRatio: input image tokens the provider reports (`prompt_tokens_details.image_tokens`) are taken
 * out of the plain prompt and billed at the model's image ratio; a billing expression prices them as `img`.
 * Gemini models' audio input (`audio_tokens`) is billed at new-api's own US$ price per million.
 */
const VISION = 'vision-ratio';
const VISION_EXPR = 'vision-expr';
const GEMINI = 'gemini-2.0-flash';

describe.each(testDatabases())('relay: input image and audio tokens on %s', (kind) => {
  let f: RelayFixture;
  let openai: OpenAI;
  const ask = [{ role: 'user' as const, content: 'what is in the picture?' }];
  const other = (row: any) => (typeof row.other === 'string' ? JSON.parse(row.other) : row.other);

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelRatio', { [VISION]: 1, [GEMINI]: 0.05 });
    await f.setOption('CompletionRatio', { [VISION]: 4, [GEMINI]: 4 });
    await f.setOption('ImageRatio', { [VISION]: 2.5 });
    await f.setOption('billing_setting.billing_mode', { [VISION_EXPR]: 'tiered_expr' });
    await f.setOption('billing_setting.billing_expr', { [VISION_EXPR]: 'tier("base", p * 2 + img * 8 + c * 10)' });
    await f.channel({ key: 'sk-vision', models: `${VISION},${VISION_EXPR},${GEMINI}` });
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

  it("bills a Gemini model's audio input at its own price per million, logged as new-api does", async () => {
    f.up.script({ path: '/v1/chat/completions', usage: { prompt_tokens: 10_000, completion_tokens: 1000, audio_tokens: 8000 } });
    const { response } = await openai.chat.completions.create({ model: GEMINI, messages: ask }).withResponse();
    // (2,000 text + 1,000 × 4) × 0.05 = 300, plus US$ 0.7/M × 8,000 × 500,000 = 2,800: 3,100.
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ quota: 3100 });
    expect(other(row)).toMatchObject({ audio_input_seperate_price: true, audio_input_token_count: 8000, audio_input_price: 0.7 });
  });

  it('refuses an image ratio that is not a non-negative number', async () => {
    const bad = await f.root.put('/api/option/', { key: 'ImageRatio', value: JSON.stringify({ [VISION]: -1 }) });
    expect(bad.body).toMatchObject({
      success: false,
      message: expect.stringMatching(/value of vision-ratio must be a non-negative number/),
    });
  });
});
