import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as vertex from '../fixtures/providers/vertex/index.js';
import { testDatabases } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

/** The client-facing model, mapped to Vertex's gemini-embedding-001 (billing stays on this name). */
const EMBED = 'cloud-vertex-embed';
const EMBED_RATIO = 1.5;

const json = (body: unknown, status = 200) => ({ status, contentType: 'application/json', body: JSON.stringify(body) });
type ApiError = InstanceType<typeof OpenAI.APIError>;

describe.each(testDatabases())('relay: Vertex AI (41) embeddings through /v1/embeddings on %s', (kind) => {
  let f: RelayFixture;
  let openai: OpenAI;
  let key: string;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelRatio', { [EMBED]: EMBED_RATIO });
    // The key file's token_uri is the fake provider, on loopback: allowed only with this option (threats S5).
    await f.setOption('AllowPrivateOutboundUrls', true);
    await f.channel({
      type: 41,
      key: vertex.serviceAccountKey(vertex.testKeyPair().privateKey, `${f.up.url}/token`),
      other: 'us-central1',
      models: EMBED,
      model_mapping: JSON.stringify({ [EMBED]: vertex.EMBEDDING_MODEL }),
    });
    key = (await f.token({ unlimited_quota: true })).key;
    openai = f.openai(key);
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => {
    f.up.reset();
    f.up.script({ path: '/token', raw: json(vertex.TOKEN_RESPONSE) });
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as ApiError,
    );
  const predictCalls = () => f.up.requests.filter((r) => r.path === vertex.EMBEDDING_PATH);

  it("calls the model's :predict with the service-account token, answers OpenAI's list, bills token_count", async () => {
    f.up.script({ path: vertex.EMBEDDING_PATH, raw: json(vertex.EMBEDDING_RESPONSE) });
    const { data, response } = await openai.embeddings
      .create({ model: EMBED, input: 'hello Vertex', dimensions: 3, encoding_format: 'float' })
      .withResponse();
    expect(data).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5, 0.125] }],
      model: EMBED,
      usage: { prompt_tokens: 6, total_tokens: 6 },
    });
    const [sent] = predictCalls();
    expect(sent!.method).toBe('POST');
    expect(sent!.headers.authorization).toBe(`Bearer ${vertex.TOKEN_RESPONSE.access_token}`);
    expect(sent!.body).toEqual(vertex.EMBEDDING_BODY);
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ modelName: EMBED, promptTokens: 6, completionTokens: 0, quota: Math.round(6 * EMBED_RATIO) });
  });

  it("answers the SDK's default request (base64 vectors) with Vertex's floats encoded as float32", async () => {
    f.up.script({ path: vertex.EMBEDDING_PATH, raw: json(vertex.EMBEDDING_RESPONSE) });
    const raw = await fetch(`${f.gw.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: EMBED, input: 'hello Vertex', dimensions: 3, encoding_format: 'base64' }),
    });
    const encoded = ((await raw.json()) as { data: { embedding: string }[] }).data[0]!.embedding;
    expect(Array.from(new Float32Array(new Uint8Array(Buffer.from(encoded, 'base64')).buffer))).toEqual([0.25, -0.5, 0.125]);
    // The official client asks for base64 unless told otherwise and decodes it.
    const { data } = await openai.embeddings.create({ model: EMBED, input: 'hello Vertex', dimensions: 3 });
    expect(data[0]!.embedding).toEqual([0.25, -0.5, 0.125]);
  });

  it('bills the local count of the input when Vertex reports no token_count', async () => {
    f.up.script({ path: vertex.EMBEDDING_PATH, raw: json(vertex.EMBEDDING_RESPONSE_NO_COUNT) });
    const { data, response } = await openai.embeddings
      .create({ model: EMBED, input: ['the quick brown fox jumps over the lazy dog'], encoding_format: 'float' })
      .withResponse();
    expect(data.data).toEqual([{ object: 'embedding', index: 0, embedding: [0.5, 0.25] }]);
    const local = data.usage.prompt_tokens;
    expect(local).toBeGreaterThan(0);
    expect(predictCalls()[0]!.body).toEqual({ instances: [{ content: 'the quick brown fox jumps over the lazy dog' }] });
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: local, quota: Math.round(local * EMBED_RATIO) });
  });

  it('answers input Vertex cannot take with a 400 JSON error, calls nobody and charges nothing', async () => {
    const before = await f.quota(f.user.id);
    const refused: [OpenAI.EmbeddingCreateParams, string][] = [
      [{ model: EMBED, input: ['first', 'second'], encoding_format: 'float' }, 'exactly one input, got 2'],
      [{ model: EMBED, input: 'hello', encoding_format: 'int8' as 'float' }, 'encoding_format "int8"'],
      [{ model: EMBED, input: 'hello', dimensions: 4000, encoding_format: 'float' }, 'at most 3072'],
    ];
    for (const [request, message] of refused) {
      const error = await refusal(openai.embeddings.create(request));
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error!.message).toContain(message);
      expect(error!.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
    }
    expect(predictCalls()).toHaveLength(0);
    expect(await f.quota(f.user.id)).toBe(before);
  });

  it("passes Vertex's error on as the relay's upstream error, and refunds", async () => {
    const before = await f.quota(f.user.id);
    f.up.script({ path: vertex.EMBEDDING_PATH, times: 1, raw: json(vertex.EMBEDDING_ERROR, 400) });
    const error = await refusal(openai.embeddings.create({ model: EMBED, input: 'x'.repeat(100), encoding_format: 'float' }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error!.message).toContain('the model supports up to 2048');
    expect(error!.error).toMatchObject({ type: 'upstream_error' });

    f.up.script({ path: vertex.EMBEDDING_PATH, raw: json({ predictions: [] }) });
    const empty = await refusal(openai.embeddings.create({ model: EMBED, input: 'hello', encoding_format: 'float' }));
    expect(empty).toBeInstanceOf(OpenAI.APIError);
    expect(empty!.status).toBe(502);
    expect(empty!.message).toContain('exactly one prediction');
    expect(await f.quota(f.user.id)).toBe(before);
  });
});
