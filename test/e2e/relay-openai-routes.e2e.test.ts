import { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPLY, FAKE_AUDIO_SECONDS, FAKE_SPEECH } from '../fake-upstream/index.js';
import { testDatabases } from '../support/databases.js';
import { relayMessage } from '../support/relay-error.js';
import { CLAUDE, GEMINI, IMAGE, IMAGE_QUOTA, OPENAI, OTHER, startFormatsFixture, type FormatsFixture } from './relay-formats-fixture.js';

/** Ratio 1, completion ratio 2: the fake upstream's 10 prompt + 20 completion tokens cost 50. */
const DEFAULT_QUOTA = 10 + 20 * 2;

describe.each(testDatabases())("relay: OpenAI's other routes and model lists on %s", (kind) => {
  let f: FormatsFixture;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${f.gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${f.apiToken.key}`, ...headers },
      body: JSON.stringify(body),
    });
  const rowOf = (res: Response) => f.row(res.headers.get('x-oneapi-request-id'));

  beforeAll(async () => {
    f = await startFormatsFixture(kind);
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('relays Responses with the openai client, billing the same usage streamed and not', async () => {
    const client = f.openai(f.apiToken.key);
    const { data, response } = await client.responses.create({ model: OTHER.responses, input: 'hi', max_output_tokens: 50 }).withResponse();
    expect(data.output_text).toBe(DEFAULT_REPLY);
    expect(f.up.requests[0]!.path).toBe('/v1/responses');
    expect(await f.row(response.headers.get('x-oneapi-request-id'))).toMatchObject({
      promptTokens: 10,
      completionTokens: 20,
      quota: DEFAULT_QUOTA,
      isStream: false,
    });

    const { data: stream, response: streamed } = await client.responses
      .create({ model: OTHER.responses, input: 'hi', stream: true })
      .withResponse();
    let text = '';
    let completed = false;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = true;
    }
    expect(text).toBe(DEFAULT_REPLY);
    expect(completed).toBe(true);
    expect(f.up.requests[1]!.body.stream_options).toBeUndefined();
    expect(await f.row(streamed.headers.get('x-oneapi-request-id'))).toMatchObject({
      promptTokens: 10,
      completionTokens: 20,
      quota: DEFAULT_QUOTA,
      isStream: true,
    });
  });

  it.each([
    { family: 'Claude', model: CLAUDE, path: '/v1/messages', format: 'anthropic' },
    { family: 'Gemini', model: GEMINI, path: `/v1beta/models/${GEMINI}:generateContent`, format: 'gemini' },
  ])('converts Responses for a $family channel (no Responses API there), streamed and not, same usage', async ({ model, path, format }) => {
    const client = f.openai(f.apiToken.key);
    const { data, response } = await client.responses
      .create({ model, instructions: 'be brief', input: [{ role: 'user', content: 'hi' }], max_output_tokens: 64 })
      .withResponse();
    expect(data.output_text).toBe(DEFAULT_REPLY);
    expect(data.status).toBe('completed');
    expect(data.usage).toMatchObject({ input_tokens: 10, output_tokens: 20 });
    expect(f.up.requests[0]!.path).toBe(path);
    // Ratio 2, completion ratio 3 for the Claude and Gemini models.
    const quota = (10 + 20 * 3) * 2;
    const row = await f.row(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 10, completionTokens: 20, quota, isStream: false });
    expect(JSON.parse(row.other).request_conversion).toEqual(['responses', format]);

    const { data: stream, response: streamed } = await client.responses.create({ model, input: 'hi', stream: true }).withResponse();
    let text = '';
    let final: any;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') final = event.response;
    }
    expect(text).toBe(DEFAULT_REPLY);
    expect(final.output[0].content[0].text).toBe(DEFAULT_REPLY);
    expect(final.usage).toMatchObject({ input_tokens: 10, output_tokens: 20 });
    expect(await f.row(streamed.headers.get('x-oneapi-request-id'))).toMatchObject({
      promptTokens: 10,
      completionTokens: 20,
      quota,
      isStream: true,
    });
  });

  it('relays /v1/responses/compact and bills its usage', async () => {
    const res = await post('/v1/responses/compact', { model: OTHER.responses, input: [{ role: 'user', content: 'long history' }] });
    expect(res.status).toBe(200);
    expect((await res.json()).object).toBe('response.compaction');
    expect(f.up.requests[0]!.path).toBe('/v1/responses/compact');
    expect(await rowOf(res)).toMatchObject({ promptTokens: 10, completionTokens: 20, quota: DEFAULT_QUOTA });
  });

  it('charges images per call × count × size × quality with the openai client', async () => {
    const client = f.openai(f.apiToken.key);
    const { data, response } = await client.images
      .generate({ model: IMAGE, prompt: 'a cat', n: 2, size: '1792x1024', quality: 'hd' })
      .withResponse();
    expect(data.data).toHaveLength(2);
    expect(await f.row(response.headers.get('x-oneapi-request-id'))).toMatchObject({ modelName: IMAGE, quota: IMAGE_QUOTA * 2 * 2 * 1.5 });
    const { response: one } = await client.images.generate({ model: IMAGE, prompt: 'a dog' }).withResponse();
    expect(await f.row(one.headers.get('x-oneapi-request-id'))).toMatchObject({ quota: IMAGE_QUOTA });
    const bad = await post('/v1/images/generations', { model: IMAGE, prompt: 'x', n: 50 });
    expect(bad.status).toBe(400);
    expect(relayMessage({ headers: bad.headers, body: await bad.json() })).toBe('n must be an integer from 1 to 10');
  });

  it('passes speech audio through as bytes and bills the input characters', async () => {
    const client = f.openai(f.apiToken.key);
    const { data, response } = await client.audio.speech
      .create({ model: OTHER.speech, voice: 'alloy', input: 'hello world' })
      .withResponse();
    expect(data.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await data.arrayBuffer())).toEqual(FAKE_SPEECH);
    expect(await f.row(response.headers.get('x-oneapi-request-id'))).toMatchObject({ promptTokens: 11, completionTokens: 0, quota: 11 });
  });

  it('forwards transcription and translation uploads and bills 1000 tokens per minute of audio', async () => {
    const client = f.openai(f.apiToken.key);
    const tokens = Math.ceil((FAKE_AUDIO_SECONDS * 1000) / 60);
    const { data, response } = await client.audio.transcriptions
      .create({ model: OTHER.whisper, file: await toFile(Buffer.from('fake audio bytes'), 'talk.mp3') })
      .withResponse();
    expect(data.text).toBe(DEFAULT_REPLY);
    expect(f.up.requests[0]).toMatchObject({
      path: '/v1/audio/transcriptions',
      body: { model: OTHER.whisper, file: { filename: 'talk.mp3', text: 'fake audio bytes' } },
    });
    expect(await f.row(response.headers.get('x-oneapi-request-id'))).toMatchObject({
      modelName: OTHER.whisper,
      promptTokens: tokens,
      completionTokens: 0,
      quota: tokens,
    });

    const { data: verbose, response: second } = await client.audio.translations
      .create({ model: OTHER.whisper, file: await toFile(Buffer.from('x'), 'a.wav'), response_format: 'verbose_json' })
      .withResponse();
    expect(verbose.text).toBe(DEFAULT_REPLY);
    expect(f.up.requests[1]!.path).toBe('/v1/audio/translations');
    expect(await f.row(second.headers.get('x-oneapi-request-id'))).toMatchObject({ promptTokens: tokens, quota: tokens });

    const text = await client.audio.transcriptions.create({
      model: OTHER.whisper,
      file: await toFile(Buffer.from('x'), 'a.wav'),
      response_format: 'text',
    });
    expect(text).toBe(DEFAULT_REPLY);

    const missing = await fetch(`${f.gw.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.apiToken.key}` },
      body: (() => {
        const form = new FormData();
        form.append('model', OTHER.whisper);
        return form;
      })(),
    });
    expect(missing.status).toBe(400);
    expect(relayMessage({ headers: missing.headers, body: await missing.json() })).toBe('file is required');
    const notForm = await post('/v1/audio/transcriptions', { model: OTHER.whisper });
    expect(notForm.status).toBe(400);
  });

  it('forwards image edits as multipart and charges them per call', async () => {
    const client = f.openai(f.apiToken.key);
    const { data, response } = await client.images
      .edit({ model: IMAGE, image: await toFile(Buffer.from('png bytes'), 'in.png', { type: 'image/png' }), prompt: 'add a hat', n: 2 })
      .withResponse();
    expect(data.data).toHaveLength(2);
    expect(f.up.requests[0]).toMatchObject({
      path: '/v1/images/edits',
      body: { model: IMAGE, prompt: 'add a hat', n: '2', image: { filename: 'in.png', text: 'png bytes' } },
    });
    expect(await f.row(response.headers.get('x-oneapi-request-id'))).toMatchObject({ modelName: IMAGE, quota: IMAGE_QUOTA * 2 });
  });

  it('bills moderations by the counted input and rerank by the reported tokens', async () => {
    const client = f.openai(f.apiToken.key);
    const { data, response } = await client.moderations.create({ model: OTHER.moderation, input: 'is this fine?' }).withResponse();
    expect(data.results[0]!.flagged).toBe(false);
    const moderation = await f.row(response.headers.get('x-oneapi-request-id'));
    expect(moderation.promptTokens).toBeGreaterThan(0);
    expect(moderation.quota).toBe(moderation.promptTokens);

    const rerank = await post('/v1/rerank', { model: OTHER.rerank, query: 'cats', documents: ['a cat', 'a dog', 'a car'], top_n: 2 });
    expect(rerank.status).toBe(200);
    expect((await rerank.json()).results).toHaveLength(2);
    expect(await rowOf(rerank)).toMatchObject({ promptTokens: 10, completionTokens: 0, quota: 10 });
    const badRerank = await post('/v1/rerank', { model: OTHER.rerank, query: 'cats' });
    expect(badRerank.status).toBe(400);
  });

  it('serves /v1/engines/{model}/embeddings and /v1/edits', async () => {
    const embeddings = await post(`/v1/engines/${OTHER.embed}/embeddings`, { input: 'hello' });
    expect(embeddings.status).toBe(200);
    expect(f.up.requests[0]).toMatchObject({ path: '/v1/embeddings', body: { model: OTHER.embed, input: 'hello' } });
    expect(await rowOf(embeddings)).toMatchObject({ modelName: OTHER.embed, promptTokens: 10, quota: 10 });

    const edits = await post('/v1/edits', { model: OTHER.edit, instruction: 'fix spelling', input: 'helo' });
    expect((await edits.json()).choices[0].text).toBe(DEFAULT_REPLY);
    expect(await rowOf(edits)).toMatchObject({ promptTokens: 10, completionTokens: 20, quota: DEFAULT_QUOTA });
  });

  it('refuses a route a Claude or Gemini channel cannot serve with a clear 400, and charges nothing', async () => {
    const before = await f.quota(f.user.id);
    for (const model of [CLAUDE, GEMINI]) {
      const res = await post('/v1/moderations', { model, input: 'hi' });
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe('convert_request_failed');
    }
    expect(f.up.requests).toHaveLength(0);
    expect(await f.quota(f.user.id)).toBe(before);
  });

  it("answers new-api's unimplemented routes with 501 api_not_implemented (after token auth)", async () => {
    const key = { authorization: `Bearer ${f.apiToken.key}` };
    for (const [method, path] of [
      ['GET', '/v1/files'],
      ['POST', '/v1/files'],
      ['GET', '/v1/files/file-1/content'],
      ['POST', '/v1/fine-tunes'],
      ['GET', '/v1/fine-tunes/ft-1/events'],
      ['POST', '/v1/images/variations'],
      ['DELETE', '/v1/models/gpt-4o'],
    ]) {
      const res = await fetch(`${f.gw.url}${path}`, { method, headers: key });
      expect(res.status, `${method} ${path}`).toBe(501);
      expect(await res.json()).toEqual({
        error: { message: 'API not implemented', type: 'new_api_error', param: '', code: 'api_not_implemented' },
      });
    }
    expect((await fetch(`${f.gw.url}/v1/files`)).status).toBe(401);
  });

  it("lists models in Anthropic's and Gemini's shapes for their clients", async () => {
    const anthropic = await f.anthropic().models.list();
    expect(anthropic.data.map((m) => m.id)).toContain(CLAUDE);
    expect(anthropic.data[0]).toMatchObject({ type: 'model', display_name: expect.any(String), created_at: '2021-07-20T10:40:00Z' });

    const gemini = await fetch(`${f.gw.url}/v1beta/models?key=${f.apiToken.key}`);
    const body = await gemini.json();
    expect(body.nextPageToken).toBeNull();
    expect(body.models).toContainEqual(expect.objectContaining({ name: `models/${GEMINI}`, displayName: GEMINI }));
    const one = await (await fetch(`${f.gw.url}/v1beta/models/${GEMINI}`, { headers: { 'x-goog-api-key': f.apiToken.key } })).json();
    expect(one).toMatchObject({ name: `models/${GEMINI}`, supportedGenerationMethods: ['generateContent', 'streamGenerateContent'] });
    const unknown = await fetch(`${f.gw.url}/v1beta/models/nope`, { headers: { 'x-goog-api-key': f.apiToken.key } });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    const viaV1 = await (await fetch(`${f.gw.url}/v1/models`, { headers: { 'x-goog-api-key': f.apiToken.key } })).json();
    expect(viaV1.models.map((m: { name: string }) => m.name)).toContain(`models/${GEMINI}`);

    const openai = await (await fetch(`${f.gw.url}/v1/models`, { headers: { authorization: `Bearer ${f.apiToken.key}` } })).json();
    expect(openai).toMatchObject({ success: true, object: 'list' });
    // new-api's supported_endpoint_types, by the types of the channels serving each model: clients with a
    // new-api provider (Cherry Studio) pick the route a model is called through by it.
    const endpoints = Object.fromEntries(
      (openai.data as { id: string; supported_endpoint_types: string[] }[]).map((m) => [m.id, m.supported_endpoint_types]),
    );
    expect(endpoints).toMatchObject({
      [OPENAI]: ['openai', 'openai-response', 'openai-response-compact'],
      [CLAUDE]: ['anthropic', 'openai'],
      [GEMINI]: ['gemini', 'openai'],
      [IMAGE]: ['image-generation', 'openai', 'openai-response', 'openai-response-compact'],
    });
    const retrieved = await (
      await fetch(`${f.gw.url}/v1/models/${CLAUDE}`, { headers: { authorization: `Bearer ${f.apiToken.key}` } })
    ).json();
    expect(retrieved).toEqual({
      id: CLAUDE,
      object: 'model',
      created: 1626777600,
      owned_by: 'custom',
      supported_endpoint_types: ['anthropic', 'openai'],
    });
    const pricing = (await f.gw.client().get('/api/pricing')).body;
    expect(pricing.data.find((row: { model_name: string }) => row.model_name === CLAUDE).supported_endpoint_types).toEqual([
      'anthropic',
      'openai',
    ]);
    expect(pricing.supported_endpoint).toMatchObject({
      anthropic: { path: '/v1/messages', method: 'POST' },
      gemini: { path: '/v1beta/models/{model}:generateContent', method: 'POST' },
      openai: { path: '/v1/chat/completions', method: 'POST' },
    });
    const denied = await fetch(`${f.gw.url}/v1beta/models?key=sk-nope`);
    expect(denied.status).toBe(401);
    expect((await denied.json()).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
  });
});
