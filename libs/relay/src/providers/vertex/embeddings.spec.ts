import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '@gw/channel';
import {
  EMBEDDING_BODY,
  EMBEDDING_MODEL,
  EMBEDDING_PATH,
  EMBEDDING_RESPONSE,
  EMBEDDING_RESPONSE_NO_COUNT,
  serviceAccountKey,
  testKeyPair,
} from '../../../../../test/fixtures/providers/vertex/index.js';
import { AdaptorRequestError, type AdaptorCall } from '../types.js';
import { vertexAdaptor, vertexEmbeddingShape } from './index.js';
import { encodeVectors } from '../../pipeline/native-embeddings.js';

const settings = { get: <T>(_key: string) => undefined as T };
const key = serviceAccountKey(testKeyPair().privateKey, 'https://oauth2.googleapis.com/token');

function call(model: string, other = '', baseUrl = ''): AdaptorCall {
  const upstream = { id: 7, type: 41, key, baseUrl, other };
  return { channel: { id: 7, type: 41, other, upstream } as unknown as RelayChannel, model, stream: false, settings };
}

const embeddingsOf = (model: string) => vertexAdaptor.forModel!(model, call(model).channel).embeddings;

describe('Vertex AI embeddings (type 41, :predict)', () => {
  it("posts to the model's :predict of publisher google in the channel's region, global on the bare host", () => {
    const embeddings = embeddingsOf(EMBEDDING_MODEL)!;
    expect(embeddings.buildRequest(call(EMBEDDING_MODEL)).url).toBe(`https://us-central1-aiplatform.googleapis.com${EMBEDDING_PATH}`);
    expect(embeddings.buildRequest(call(EMBEDDING_MODEL, 'global')).url).toBe(
      `https://aiplatform.googleapis.com/v1/projects/gw-test-project/locations/global/publishers/google/models/${EMBEDDING_MODEL}:predict`,
    );
    expect(embeddings.buildRequest(call('text-embedding-005', '{"default":"europe-west4"}')).url).toBe(
      'https://europe-west4-aiplatform.googleapis.com/v1/projects/gw-test-project/locations/europe-west4/publishers/google/models/text-embedding-005:predict',
    );
    expect(embeddingsOf('claude-3-5-sonnet-20240620')).toBeUndefined();
  });

  it('takes base64 vectors, the official SDKs default, as float ones: the relay encodes the answer', () => {
    expect(vertexEmbeddingShape.requestFromOpenAi({ input: 'hello', encoding_format: 'base64' }, EMBEDDING_MODEL)).toEqual({
      instances: [{ content: 'hello' }],
    });
    const answer = { data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5] }] };
    encodeVectors(answer);
    expect(answer.data[0]!.embedding).toBe(Buffer.from(new Float32Array([0.25, -0.5]).buffer).toString('base64'));
  });

  it('turns one OpenAI input into one instance, dimensions into outputDimensionality (fixture)', () => {
    const { requestFromOpenAi } = vertexEmbeddingShape;
    expect(requestFromOpenAi({ input: 'hello Vertex', dimensions: 3, encoding_format: 'float' }, EMBEDDING_MODEL)).toEqual(EMBEDDING_BODY);
    expect(requestFromOpenAi({ input: ['hello Vertex'] }, EMBEDDING_MODEL)).toEqual({ instances: [{ content: 'hello Vertex' }] });
    expect(requestFromOpenAi({ input: 'x', dimensions: 3072, encoding_format: null }, EMBEDDING_MODEL)).toEqual({
      instances: [{ content: 'x' }],
      parameters: { outputDimensionality: 3072 },
    });
    // The 3072 ceiling is gemini-embedding-001's; other models are left to Google to judge.
    expect(requestFromOpenAi({ input: 'x', dimensions: 4096 }, 'text-embedding-005').parameters).toEqual({ outputDimensionality: 4096 });
  });

  it.each([
    ['several inputs', { input: ['first', 'second'] }, /exactly one input, got 2/],
    ['an empty array', { input: [] }, /exactly one input, got 0/],
    ['a token array', { input: [123] }, /must contain a string/],
    ['a mixed array', { input: [123, 'second'] }, /exactly one input/],
    ['token ids', { input: 123 }, /a string or a single-element string array/],
    ['blank text', { input: '   ' }, /must not be empty/],
    ['an unknown vector encoding', { input: 'hello', encoding_format: 'int8' }, /encoding_format "int8"/],
    ['zero dimensions', { input: 'hello', dimensions: 0 }, /greater than zero/],
    ['fractional dimensions', { input: 'hello', dimensions: 1.5 }, /integer/],
    ['dimensions above the model ceiling', { input: 'hello', dimensions: 3073 }, /at most 3072/],
  ])('refuses %s with an AdaptorRequestError (the client gets a 400)', (_name, body, message) => {
    expect(() => vertexEmbeddingShape.requestFromOpenAi(body, EMBEDDING_MODEL)).toThrow(AdaptorRequestError);
    expect(() => vertexEmbeddingShape.requestFromOpenAi(body, EMBEDDING_MODEL)).toThrow(message);
  });

  it("answers the prediction's vector as OpenAI's list, billed on statistics.token_count (fixture)", () => {
    expect(vertexEmbeddingShape.responseToOpenAi(EMBEDDING_RESPONSE, 'my-embed')).toEqual({
      response: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5, 0.125] }], model: 'my-embed' },
      usage: { promptTokens: 6, completionTokens: 0, cachedTokens: 0 },
    });
  });

  it('leaves usage to the local count when token_count is missing, zero or negative', () => {
    expect(vertexEmbeddingShape.responseToOpenAi(EMBEDDING_RESPONSE_NO_COUNT, 'm').usage).toBeUndefined();
    for (const token_count of [0, -1]) {
      const native = { predictions: [{ embeddings: { statistics: { token_count }, values: [0.25] } }] };
      expect(vertexEmbeddingShape.responseToOpenAi(native, 'm')).toMatchObject({
        response: { data: [{ embedding: [0.25] }] },
        usage: undefined,
      });
    }
  });

  it('throws on an answer without exactly one usable prediction (the client gets a 502)', () => {
    const { responseToOpenAi } = vertexEmbeddingShape;
    expect(() => responseToOpenAi({ predictions: [] }, 'm')).toThrow('exactly one prediction');
    expect(() => responseToOpenAi({}, 'm')).toThrow('exactly one prediction');
    expect(() => responseToOpenAi({ predictions: [EMBEDDING_RESPONSE.predictions[0], EMBEDDING_RESPONSE.predictions[0]] }, 'm')).toThrow(
      'exactly one prediction',
    );
    expect(() => responseToOpenAi({ predictions: [{ embeddings: { values: [] } }] }, 'm')).toThrow('empty vector');
    expect(() => responseToOpenAi({ predictions: [{}] }, 'm')).toThrow('empty vector');
  });
});
