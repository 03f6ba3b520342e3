import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TokenCounter } from '../../libs/relay/src/pricing/token-counter.js';
import * as vertex from '../fixtures/providers/vertex/index.js';
import { type RelayFixture, startRelayFixture } from './relay-fixture.js';

/**
 * OpenAI embeddings and image generation on a Gemini channel (type 24), through the official client, as new-api
 * serves them: embeddings to :batchEmbedContents billed on the local count, Imagen to :predict billed 258 tokens a
 * picture, Gemini's image models to generateContent asking for an image (also in a chat), billed on usageMetadata.
 */
const EMBED = 'gemini-embedding-001';
const IMAGEN = 'imagen-4.0-generate-001';
const IMAGE_MODEL = 'gemini-2.5-flash-image';
const TEXT_MODEL = 'gemini-2.5-flash';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';
const json = (body: unknown, status = 200) => ({ status, contentType: 'application/json', body: JSON.stringify(body) });

describe('relay: OpenAI embeddings and images on a Gemini channel', () => {
  let f: RelayFixture;
  let openai: OpenAI;
  const sent = () => f.up.requests.at(-1)!;

  beforeAll(async () => {
    f = await startRelayFixture('sqlite');
    await f.setOption('ModelRatio', { [EMBED]: 1, [IMAGEN]: 2, [IMAGE_MODEL]: 1, [TEXT_MODEL]: 1 });
    await f.channel({ type: 24, key: 'gemini-media-key', models: [EMBED, IMAGEN, IMAGE_MODEL, TEXT_MODEL].join(',') });
    openai = f.openai((await f.token({ unlimited_quota: true })).key);
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('embeddings: one batchEmbedContents request per text, vectors back in order, the local count billed', async () => {
    f.up.script({
      path: `/v1beta/models/${EMBED}:batchEmbedContents`,
      raw: json({ embeddings: [{ values: [0.5, 0.25] }, { values: [1, 0] }] }),
    });
    const { data, response } = await openai.embeddings
      .create({ model: EMBED, input: ['first text', 'second'], dimensions: 2, encoding_format: 'float' })
      .withResponse();
    expect(data.data.map((d) => d.embedding)).toEqual([
      [0.5, 0.25],
      [1, 0],
    ]);
    expect(sent().headers['x-goog-api-key']).toBe('gemini-media-key');
    expect(sent().body).toEqual({
      requests: [
        { model: `models/${EMBED}`, content: { parts: [{ text: 'first text' }] }, outputDimensionality: 2 },
        { model: `models/${EMBED}`, content: { parts: [{ text: 'second' }] }, outputDimensionality: 2 },
      ],
    });
    // Gemini reports no tokens: the relay's own count of the input texts is billed.
    const counter = new TokenCounter();
    const prompt = counter.countTextTokens(EMBED, 'first text') + counter.countTextTokens(EMBED, 'second');
    expect(data.usage.prompt_tokens).toBe(prompt);
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ modelName: EMBED, promptTokens: prompt, completionTokens: 0, quota: prompt });

    // The SDK's default base64 encoding is honoured too.
    f.up.script({ path: `/v1beta/models/${EMBED}:batchEmbedContents`, raw: json({ embeddings: [{ values: [0.5, 0.25] }] }) });
    const encoded = await openai.embeddings.create({ model: EMBED, input: 'x' });
    expect(encoded.data[0]!.embedding).toEqual([0.5, 0.25]);
  });

  it('Imagen: :predict with the count, ratio and size; pictures as b64_json, 258 tokens each', async () => {
    f.up.script({
      path: `/v1beta/models/${IMAGEN}:predict`,
      raw: json({
        predictions: [
          { bytesBase64Encoded: PNG, mimeType: 'image/png' },
          { bytesBase64Encoded: PNG, mimeType: 'image/png' },
        ],
      }),
    });
    const { data, response } = await openai.images
      .generate({ model: IMAGEN, prompt: 'a lighthouse', n: 2, size: '1792x1024', quality: 'hd' })
      .withResponse();
    expect(data.data?.map((d) => d.b64_json)).toEqual([PNG, PNG]);
    expect(sent().body).toEqual({
      instances: [{ prompt: 'a lighthouse' }],
      parameters: { sampleCount: 2, aspectRatio: '16:9', personGeneration: 'allow_adult', imageSize: '2K' },
    });
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ modelName: IMAGEN, promptTokens: 516, completionTokens: 0, quota: 516 * 2 });
  });

  it('an image model: generateContent asking for text and image; its picture and usage come back', async () => {
    const usageMetadata = { promptTokenCount: 7, candidatesTokenCount: 1290, totalTokenCount: 1297 };
    const answer = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'A banana.' }, { inlineData: { mimeType: 'image/png', data: PNG } }] } }],
      usageMetadata,
    };
    f.up.script({ path: `/v1beta/models/${IMAGE_MODEL}:generateContent`, raw: json(answer) });
    const { data, response } = await openai.images.generate({ model: IMAGE_MODEL, prompt: 'a banana', size: '1024x1792' }).withResponse();
    expect(data.data).toEqual([{ b64_json: PNG, revised_prompt: 'A banana.' }]);
    expect(sent().body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'a banana' }] }],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '9:16' } },
    });
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ modelName: IMAGE_MODEL, promptTokens: 7, completionTokens: 1290 });

    // The same model in a chat: asked for an image, answered with it as a Markdown data URL.
    f.up.script({ path: `/v1beta/models/${IMAGE_MODEL}:generateContent`, raw: json(answer) });
    const chat = await openai.chat.completions.create({ model: IMAGE_MODEL, messages: [{ role: 'user', content: 'draw a banana' }] });
    expect(sent().body.generationConfig).toEqual({ responseModalities: ['TEXT', 'IMAGE'] });
    expect(chat.choices[0]!.message.content).toBe(`A banana.\n![image](data:image/png;base64,${PNG})`);
  });

  it('refuses what Gemini cannot do as the client’s 400, calling nothing and charging nothing', async () => {
    const before = await f.quota(f.user.id);
    const notImage = await openai.images.generate({ model: TEXT_MODEL, prompt: 'x' }).catch((e: unknown) => e);
    expect(notImage).toBeInstanceOf(OpenAI.BadRequestError);
    expect((notImage as Error).message).toMatch(/model gemini-2\.5-flash does not generate images on a Google channel/);
    const twoPictures = await openai.images.generate({ model: IMAGE_MODEL, prompt: 'x', n: 2 }).catch((e: unknown) => e);
    expect((twoPictures as Error).message).toMatch(/supports exactly one image per request/);
    const tokens = await openai.embeddings.create({ model: EMBED, input: [[1, 2, 3]] }).catch((e: unknown) => e);
    expect(tokens).toBeInstanceOf(OpenAI.BadRequestError);
    expect((tokens as Error).message).toMatch(/input is empty/);
    expect(f.up.requests).toHaveLength(0);
    expect(await f.quota(f.user.id)).toBe(before);

    // A filtered Imagen answer is the provider's failure: nothing charged either.
    f.up.script({ path: `/v1beta/models/${IMAGEN}:predict`, raw: json({ predictions: [{ raiFilteredReason: 'Unsafe prompt' }] }) });
    const filtered = await openai.images.generate({ model: IMAGEN, prompt: 'x' }).catch((e: unknown) => e);
    expect(filtered).toBeInstanceOf(OpenAI.APIError);
    expect((filtered as Error).message).toMatch(/Imagen generated no image: Unsafe prompt/);
    expect(await f.quota(f.user.id)).toBe(before);
  });
  it('tests a channel whose test model embeds through :batchEmbedContents, not a chat', async () => {
    const id = await f.channel({ type: 24, key: 'gemini-test-key', models: EMBED, test_model: EMBED });
    try {
      f.up.script({ path: `/v1beta/models/${EMBED}:batchEmbedContents`, times: 1, raw: json({ embeddings: [{ values: [1, 0] }] }) });
      expect((await f.root.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: true });
      expect(sent()).toMatchObject({
        path: `/v1beta/models/${EMBED}:batchEmbedContents`,
        body: { requests: [{ model: `models/${EMBED}`, content: { parts: [{ text: 'hi' }] } }] },
      });
      expect(sent().headers['x-goog-api-key']).toBe('gemini-test-key');

      const refusal = { error: { code: 404, message: 'models/gemini-embedding-001 is not found', status: 'NOT_FOUND' } };
      f.up.script({ path: `/v1beta/models/${EMBED}:batchEmbedContents`, raw: json(refusal, 404) });
      const failed = (await f.root.get(`/api/channel/test/${id}`)).body;
      expect(failed.success).toBe(false);
      expect(failed.message).toMatch(/is not found/);
    } finally {
      await f.root.delete(`/api/channel/${id}`);
    }
  });
  it("Vertex AI: Imagen through the publisher model's :predict with the service-account token", async () => {
    const model = 'imagen-3.0-generate-002';
    await f.setOption('AllowPrivateOutboundUrls', true);
    await f.setOption('ModelRatio', { [EMBED]: 1, [IMAGEN]: 2, [IMAGE_MODEL]: 1, [TEXT_MODEL]: 1, [model]: 1 });
    const id = await f.channel({
      type: 41,
      key: vertex.serviceAccountKey(vertex.testKeyPair().privateKey, `${f.up.url}/token`),
      other: 'us-central1',
      models: model,
    });
    try {
      const path = `/v1/projects/${vertex.PROJECT}/locations/us-central1/publishers/google/models/${model}:predict`;
      f.up.script({ path: '/token', raw: json(vertex.TOKEN_RESPONSE) });
      f.up.script({ path, raw: json({ predictions: [{ bytesBase64Encoded: PNG, mimeType: 'image/png' }] }) });
      const { data, response } = await openai.images.generate({ model, prompt: 'a fjord', size: '1024x1792' }).withResponse();
      expect(data.data?.map((d) => d.b64_json)).toEqual([PNG]);
      expect(sent()).toMatchObject({
        path,
        body: { instances: [{ prompt: 'a fjord' }], parameters: { sampleCount: 1, aspectRatio: '9:16', personGeneration: 'allow_adult' } },
      });
      expect(sent().headers.authorization).toBe(`Bearer ${vertex.TOKEN_RESPONSE.access_token}`);
      expect(await f.settled(response.headers.get('x-oneapi-request-id'))).toMatchObject({ modelName: model, promptTokens: 258 });
    } finally {
      await f.root.delete(`/api/channel/${id}`);
    }
  });
});
