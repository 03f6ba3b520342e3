import type { RelayChannel } from '@gw/channel';
import { describe, expect, it } from 'vitest';
import { AdaptorRequestError, type AdaptorCall, type ProviderSettings } from '../types.js';
import { geminiAdaptor, geminiCodec } from './index.js';

const IMAGE_MODELS = ['gemini-2.5-flash-image'];
const settings: ProviderSettings = {
  get: <T>(key: string) => (key === 'gemini.supported_imagine_models' ? IMAGE_MODELS : undefined) as T,
};
const channel = { id: 3, type: 24, other: '', upstream: { id: 3, type: 24, key: 'g-key', baseUrl: 'https://g.example' } };
const call = (model: string): AdaptorCall => ({ channel: channel as unknown as RelayChannel, model, stream: false, settings });
const images = geminiAdaptor.endpoints!.images_generations!;
const embeddings = geminiAdaptor.embeddings!;
const PNG = 'iVBORw0KGgo=';

describe('OpenAI image generation on a Gemini channel (new-api: Imagen :predict, image models generateContent)', () => {
  it('asks Imagen for n pictures at the size as a ratio, and answers them as b64_json billed 258 tokens each', () => {
    expect(images.build(call('imagen-4.0-generate-001')).url).toBe('https://g.example/v1beta/models/imagen-4.0-generate-001:predict');
    expect(images.body({ prompt: 'a cat', n: 2, size: '1792x1024', quality: 'hd' }, 'imagen-4.0-generate-001', settings)).toEqual({
      instances: [{ prompt: 'a cat' }],
      parameters: { sampleCount: 2, aspectRatio: '16:9', personGeneration: 'allow_adult', imageSize: '2K' },
    });
    // A ratio passes as given; an unknown size is square; no quality, no imageSize.
    expect(images.body({ prompt: 'x', size: '4:3' }, 'imagen-3', settings).parameters).toEqual({
      sampleCount: 1,
      aspectRatio: '4:3',
      personGeneration: 'allow_adult',
    });
    expect((images.body({ prompt: 'x', size: '__proto__' }, 'imagen-3', settings).parameters as { aspectRatio: string }).aspectRatio).toBe(
      '1:1',
    );

    const answer = images.answer({
      predictions: [{ bytesBase64Encoded: PNG, mimeType: 'image/png' }, { raiFilteredReason: 'filtered' }, { bytesBase64Encoded: PNG }],
    });
    expect(answer.response.data).toEqual([{ b64_json: PNG }, { b64_json: PNG }]);
    expect(answer.usage).toEqual({ promptTokens: 516, completionTokens: 0, cachedTokens: 0 });
    expect(() => images.answer({ predictions: [{ raiFilteredReason: 'Unsafe prompt' }] })).toThrow(
      'Imagen generated no image: Unsafe prompt',
    );
  });

  it('asks an image model for text and image through generateContent, one picture, and reads its inline image and usage', () => {
    expect(images.build(call('gemini-2.5-flash-image')).url).toBe('https://g.example/v1beta/models/gemini-2.5-flash-image:generateContent');
    const body = images.body({ prompt: 'a banana', size: '1024x1792', quality: '4k' }, 'gemini-2.5-flash-image', settings);
    expect(body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'a banana' }] }],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '9:16', imageSize: '4K' } },
    });
    expect(body.safetySettings).toContainEqual({ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' });
    expect(() => images.body({ prompt: 'x', n: 2 }, 'gemini-2.5-flash-image', settings)).toThrow(AdaptorRequestError);

    const answer = images.answer({
      candidates: [
        { content: { parts: [{ text: 'Here is ' }, { text: 'your banana.' }, { inlineData: { mimeType: 'image/png', data: PNG } }] } },
      ],
      usageMetadata: { promptTokenCount: 6, candidatesTokenCount: 1290, totalTokenCount: 1296 },
    });
    expect(answer.response.data).toEqual([{ b64_json: PNG, revised_prompt: 'Here is your banana.' }]);
    expect(answer.usage).toEqual({ promptTokens: 6, completionTokens: 1290, cachedTokens: 0 });
    expect(() => images.answer({ candidates: [{ content: { parts: [{ text: 'no' }] }, finishReason: 'IMAGE_SAFETY' }] })).toThrow(
      'Gemini generated no image (finish reason IMAGE_SAFETY)',
    );
  });

  it('refuses other models as the client’s error', () => {
    expect(() => images.body({ prompt: 'x' }, 'gemini-2.5-pro', settings)).toThrow(/does not generate images on a Google channel/);
  });

  it('asks image models for text and image in a converted chat, and no other model', () => {
    const ask = { messages: [{ role: 'user', content: 'draw a cat' }] };
    expect(geminiCodec.requestFromHub(ask, 'gemini-2.5-flash-image', settings).generationConfig).toEqual({
      responseModalities: ['TEXT', 'IMAGE'],
    });
    expect(geminiCodec.requestFromHub(ask, 'gemini-2.5-flash', settings).generationConfig).toBeUndefined();
  });
});

describe('OpenAI embeddings on a Gemini channel (new-api: always :batchEmbedContents)', () => {
  it('sends one request per text, with dimensions only for the models that take them', () => {
    expect(embeddings.buildRequest(call('gemini-embedding-001')).url).toBe(
      'https://g.example/v1beta/models/gemini-embedding-001:batchEmbedContents',
    );
    expect(embeddings.requestFromOpenAi({ input: ['a', 'b'], dimensions: 256 }, 'gemini-embedding-001')).toEqual({
      requests: [
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a' }] }, outputDimensionality: 256 },
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'b' }] }, outputDimensionality: 256 },
      ],
    });
    expect(embeddings.requestFromOpenAi({ input: 'a', dimensions: 256 }, 'embedding-001')).toEqual({
      requests: [{ model: 'models/embedding-001', content: { parts: [{ text: 'a' }] } }],
    });
    expect(() => embeddings.requestFromOpenAi({ input: [[1, 2]] }, 'gemini-embedding-001')).toThrow(AdaptorRequestError);
  });

  it('answers the vectors in order in OpenAI’s shape, leaving the count to the relay', () => {
    const mapped = embeddings.responseToOpenAi({ embeddings: [{ values: [0.1, 0.2] }, { values: [0.3] }] }, 'emb');
    expect(mapped).toEqual({
      response: {
        object: 'list',
        model: 'emb',
        data: [
          { object: 'embedding', index: 0, embedding: [0.1, 0.2] },
          { object: 'embedding', index: 1, embedding: [0.3] },
        ],
      },
    });
    expect(() => embeddings.responseToOpenAi({ error: {} }, 'emb')).toThrow('the Gemini answer has no embeddings');
  });
});
