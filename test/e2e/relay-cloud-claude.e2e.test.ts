import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as bedrock from '../fixtures/providers/bedrock/index.js';
import * as vertex from '../fixtures/providers/vertex/index.js';
import { testDatabases } from '../support/databases.js';
import { COMPLETION_RATIOS, RATIOS, startRelayFixture, type RelayFixture } from './relay-fixture.js';
import { expectRow, formatQuota } from './relay-formats-fixture.js';
import { readChatStream } from '../support/chat-stream.js';

/** Client-facing model names, mapped per channel to the provider's names (billing stays on these). */
const BEDROCK = 'cloud-bedrock-claude';
const BEDROCK_BAD_KEY = 'cloud-bedrock-badkey';
const VERTEX_GEMINI = 'cloud-vertex-gemini';
const VERTEX_CLAUDE = 'cloud-vertex-claude';
const VERTEX_REFUSED = 'cloud-vertex-refused';
const EXPRESS_GEMINI = 'cloud-vertex-express';
const EXPRESS_CLAUDE = 'cloud-vertex-express-claude';
const MODELS = [BEDROCK, BEDROCK_BAD_KEY, VERTEX_GEMINI, VERTEX_CLAUDE, VERTEX_REFUSED, EXPRESS_GEMINI, EXPRESS_CLAUDE];

const json = (body: unknown, status = 200) => ({ status, contentType: 'application/json', body: JSON.stringify(body) });
const ASK = [{ role: 'user' as const, content: 'Hello' }];

describe.each(testDatabases())('relay: AWS Bedrock Claude (33) and Vertex AI (41) on %s', (kind) => {
  let f: RelayFixture;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    const each = (value: number) => Object.fromEntries(MODELS.map((m) => [m, value]));
    await f.setOption('ModelRatio', { ...RATIOS, ...each(2) });
    await f.setOption('CompletionRatio', { ...COMPLETION_RATIOS, ...each(3) });
    await f.setOption('CacheRatio', each(0.1));
    await f.setOption('CreateCacheRatio', each(1.25));
    // The Vertex key files' token_uri is the fake provider, on loopback: allowed only with this option (threats S5).
    await f.setOption('AllowPrivateOutboundUrls', true);
    const claude = bedrock.CHAT_REQUEST.model;
    await f.channel({
      type: 33,
      key: bedrock.KEY,
      models: BEDROCK,
      model_mapping: JSON.stringify({ [BEDROCK]: claude }),
    });
    await f.channel({ type: 33, key: 'not-an-aws-key', models: BEDROCK_BAD_KEY });
    const keys = vertex.testKeyPair();
    await f.channel({
      type: 41,
      key: vertex.serviceAccountKey(keys.privateKey, `${f.up.url}/token`),
      other: JSON.stringify({ default: 'us-central1', [vertex.CLAUDE_MODEL]: 'us-east5' }),
      models: `${VERTEX_GEMINI},${VERTEX_CLAUDE}`,
      model_mapping: JSON.stringify({ [VERTEX_GEMINI]: vertex.GEMINI_MODEL, [VERTEX_CLAUDE]: vertex.CLAUDE_MODEL }),
    });
    await f.channel({
      type: 41,
      key: vertex.serviceAccountKey(keys.privateKey, `${f.up.url}/refused-token`),
      models: VERTEX_REFUSED,
      model_mapping: JSON.stringify({ [VERTEX_REFUSED]: vertex.GEMINI_MODEL }),
    });
    // Express mode: an API key, no service account (auto_ban off: the Claude model on it is refused as a key error).
    await f.channel({
      type: 41,
      key: vertex.EXPRESS_API_KEY,
      other: 'global',
      settings: JSON.stringify({ vertex_key_type: 'api_key' }),
      auto_ban: 0,
      models: `${EXPRESS_GEMINI},${EXPRESS_CLAUDE}`,
      model_mapping: JSON.stringify({ [EXPRESS_GEMINI]: vertex.GEMINI_MODEL, [EXPRESS_CLAUDE]: vertex.CLAUDE_MODEL }),
    });
    const token = await f.token({ unlimited_quota: true });
    openai = f.openai(token.key);
    anthropic = new Anthropic({ apiKey: token.key, baseURL: f.gw.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  describe('AWS Bedrock Claude', () => {
    it('calls InvokeModel signed with SigV4, answers the OpenAI client and bills cache reads and writes at their ratios', async () => {
      f.up.script({ path: bedrock.INVOKE_PATH, raw: json(bedrock.INVOKE_RESPONSE) });
      const { data, response } = await openai.chat.completions
        .create({ model: BEDROCK, messages: bedrock.CHAT_REQUEST.messages as never, max_tokens: 64, temperature: 0.5 })
        .withResponse();
      expect(data.choices[0]!.message.content).toBe('Hello! How can I help?');
      expect(data.usage).toMatchObject({ prompt_tokens: 132, completion_tokens: 8 });
      const sent = f.up.requests[0]!;
      expect(sent.path).toBe(bedrock.INVOKE_PATH);
      expect(sent.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, /);
      expect(sent.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
      expect(sent.headers['x-api-key']).toBeUndefined();
      expect(sent.body).toEqual(bedrock.INVOKE_BODY);
      expectRow(await f.settled(response.headers.get('x-oneapi-request-id')), {
        model: BEDROCK,
        ...bedrock.INVOKE_USAGE,
        quota: formatQuota(bedrock.INVOKE_USAGE),
        stream: false,
        conversion: ['openai', 'anthropic'],
        path: '/v1/chat/completions',
      });
    });

    it('decodes InvokeModelWithResponseStream event frames into an OpenAI stream with the same usage and charge', async () => {
      f.up.script({
        path: bedrock.STREAM_PATH,
        raw: { contentType: 'application/vnd.amazon.eventstream', body: bedrock.encodeEventStream(bedrock.STREAM_EVENTS) },
      });
      const stream = await openai.chat.completions.create({
        model: BEDROCK,
        messages: ASK,
        stream: true,
        stream_options: { include_usage: true },
      });
      const { text, usage } = await readChatStream(stream);
      expect(text).toBe(bedrock.STREAM_TEXT);
      expect(usage).toMatchObject({ prompt_tokens: 132, completion_tokens: 8 });
      expect(f.up.requests[0]!.headers.accept).toBe('application/vnd.amazon.eventstream');
      const [row] = await f.logCount({ modelName: BEDROCK, isStream: true }, 1);
      expectRow(row, {
        model: BEDROCK,
        ...bedrock.INVOKE_USAGE,
        quota: formatQuota(bedrock.INVOKE_USAGE),
        stream: true,
        conversion: ['openai', 'anthropic'],
        path: '/v1/chat/completions',
      });
    });

    it('serves the Anthropic SDK: Messages pass through, the event stream re-sent as Anthropic SSE', async () => {
      // The stream path starts with the invoke path: its rule goes first.
      f.up.script({
        path: bedrock.STREAM_PATH,
        raw: { contentType: 'application/vnd.amazon.eventstream', body: bedrock.encodeEventStream(bedrock.STREAM_EVENTS) },
      });
      f.up.script({ path: bedrock.INVOKE_PATH, raw: json(bedrock.INVOKE_RESPONSE) });
      const message = await anthropic.messages.create(
        { model: BEDROCK, max_tokens: 64, messages: ASK },
        { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } },
      );
      expect(message.content).toEqual([{ type: 'text', text: 'Hello! How can I help?' }]);
      expect(f.up.requests[0]!.body).toEqual({
        anthropic_version: 'bedrock-2023-05-31',
        anthropic_beta: ['prompt-caching-2024-07-31'],
        max_tokens: 64,
        messages: ASK,
      });
      const streamed = await anthropic.messages.stream({ model: BEDROCK, max_tokens: 64, messages: ASK }).finalMessage();
      expect(streamed.content).toEqual([{ type: 'text', text: bedrock.STREAM_TEXT }]);
      expect(streamed.usage).toMatchObject({
        input_tokens: 12,
        output_tokens: 8,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 20,
      });
      // The second streamed row of this model (the first came from the OpenAI client).
      const rows = await f.logCount({ modelName: BEDROCK, isStream: true }, 2);
      expectRow(rows.at(-1), {
        model: BEDROCK,
        ...bedrock.INVOKE_USAGE,
        quota: formatQuota(bedrock.INVOKE_USAGE),
        stream: true,
        path: '/v1/messages',
      });
    });

    it("passes Bedrock's errors on, refunds, and never calls AWS with an unusable key", async () => {
      const before = await f.quota(f.user.id);
      f.up.script({ path: bedrock.INVOKE_PATH, times: 1, raw: json(bedrock.ERROR_VALIDATION, 400) });
      const error = (await openai.chat.completions.create({ model: BEDROCK, messages: ASK }).catch((e: unknown) => e)) as InstanceType<
        typeof OpenAI.APIError
      >;
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.status).toBe(400);
      expect(error.message).toContain('Malformed input request');
      f.up.script({
        path: bedrock.STREAM_PATH,
        raw: {
          contentType: 'application/vnd.amazon.eventstream',
          body: bedrock.encodeException('throttlingException', 'Too many requests'),
        },
      });
      const cut = await openai.chat.completions.create({ model: BEDROCK, messages: ASK, stream: true }).catch((e: unknown) => e);
      expect(cut).toBeInstanceOf(OpenAI.APIError);
      expect((cut as InstanceType<typeof OpenAI.APIError>).message).toContain('Too many requests');
      const requests = f.up.requests.length;
      const bad = await openai.chat.completions.create({ model: BEDROCK_BAD_KEY, messages: ASK }).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(OpenAI.APIError);
      expect(f.up.requests.length).toBe(requests);
      expect(await f.quota(f.user.id)).toBe(before);
    });
  });

  describe('Vertex AI', () => {
    it('exchanges the service account for a token once, then calls Gemini generateContent with it (OpenAI client)', async () => {
      f.up.script({ path: '/token', raw: json(vertex.TOKEN_RESPONSE) });
      f.up.script({ path: vertex.GEMINI_PATH, raw: json(vertex.GEMINI_RESPONSE) });
      const usage = { prompt: 120, completion: 38, cached: 20 };
      for (let i = 0; i < 2; i++) {
        const { data, response } = await openai.chat.completions.create({ model: VERTEX_GEMINI, messages: ASK }).withResponse();
        expect(data.choices[0]!.message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_weather' } });
        expect(data.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 38 });
        expectRow(await f.settled(response.headers.get('x-oneapi-request-id')), {
          model: VERTEX_GEMINI,
          ...usage,
          quota: formatQuota(usage),
          stream: false,
          conversion: ['openai', 'gemini'],
          path: '/v1/chat/completions',
        });
      }
      const token = f.up.requests.filter((r) => r.path === '/token');
      expect(token).toHaveLength(1);
      expect(new URLSearchParams(token[0]!.body as string).get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
      const calls = f.up.requests.filter((r) => r.path === vertex.GEMINI_PATH);
      expect(calls).toHaveLength(2);
      expect(calls[0]!.headers.authorization).toBe(`Bearer ${vertex.TOKEN_RESPONSE.access_token}`);
      expect(calls[0]!.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] });
    });

    it('streams Gemini on Vertex (streamGenerateContent?alt=sse) with the last usage billed', async () => {
      f.up.script({ path: vertex.GEMINI_STREAM_PATH.split('?')[0], raw: { contentType: 'text/event-stream', body: vertex.GEMINI_STREAM } });
      const stream = await openai.chat.completions.create({ model: VERTEX_GEMINI, messages: ASK, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toBe('The sky is blue.');
      expect(f.up.requests.at(-1)!.path).toBe(vertex.GEMINI_STREAM_PATH);
      const usage = { prompt: 120, completion: 38, cached: 20 };
      const [row] = await f.logCount({ modelName: VERTEX_GEMINI, isStream: true }, 1);
      expectRow(row, {
        model: VERTEX_GEMINI,
        ...usage,
        quota: formatQuota(usage),
        stream: true,
        conversion: ['openai', 'gemini'],
        path: '/v1/chat/completions',
      });
    });

    it('sends Claude models to rawPredict / streamRawPredict in their region (Anthropic SDK), cache billed at its ratios', async () => {
      f.up.script({ path: vertex.CLAUDE_PATH, raw: json(vertex.CLAUDE_RESPONSE) });
      f.up.script({ path: vertex.CLAUDE_STREAM_PATH, raw: { contentType: 'text/event-stream', body: vertex.CLAUDE_STREAM } });
      const usage = { prompt: 180, completion: 40, cached: 100, created: 50 };
      const { data, response } = await anthropic.messages.create({ model: VERTEX_CLAUDE, max_tokens: 64, messages: ASK }).withResponse();
      expect(data.stop_reason).toBe('tool_use');
      const sent = f.up.requests.find((r) => r.path === vertex.CLAUDE_PATH)!;
      expect(sent.body).toEqual({ anthropic_version: 'vertex-2023-10-16', max_tokens: 64, messages: ASK });
      expect(sent.headers.authorization).toBe(`Bearer ${vertex.TOKEN_RESPONSE.access_token}`);
      expectRow(await f.settled(response.headers.get('x-oneapi-request-id')), {
        model: VERTEX_CLAUDE,
        ...usage,
        quota: formatQuota(usage),
        stream: false,
        path: '/v1/messages',
      });
      const message = await anthropic.messages.stream({ model: VERTEX_CLAUDE, max_tokens: 64, messages: ASK }).finalMessage();
      expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
      expect(f.up.requests.find((r) => r.path === vertex.CLAUDE_STREAM_PATH)!.body).toMatchObject({
        stream: true,
        anthropic_version: 'vertex-2023-10-16',
      });
      const [row] = await f.logCount({ modelName: VERTEX_CLAUDE, isStream: true }, 1);
      expectRow(row, { model: VERTEX_CLAUDE, ...usage, quota: formatQuota(usage), stream: true, path: '/v1/messages' });
    });

    it('with an express-mode API key (vertex_key_type api_key): the global publisher path, the key in x-goog-api-key, no token', async () => {
      f.up.script({ path: vertex.EXPRESS_GEMINI_PATH, raw: json(vertex.GEMINI_RESPONSE) });
      f.up.script({
        path: vertex.EXPRESS_GEMINI_STREAM_PATH.split('?')[0],
        raw: { contentType: 'text/event-stream', body: vertex.GEMINI_STREAM },
      });
      const usage = { prompt: 120, completion: 38, cached: 20 };
      const { data, response } = await openai.chat.completions.create({ model: EXPRESS_GEMINI, messages: ASK }).withResponse();
      expect(data.choices[0]!.message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_weather' } });
      expectRow(await f.settled(response.headers.get('x-oneapi-request-id')), {
        model: EXPRESS_GEMINI,
        ...usage,
        quota: formatQuota(usage),
        stream: false,
        conversion: ['openai', 'gemini'],
        path: '/v1/chat/completions',
      });
      const stream = await openai.chat.completions.create({ model: EXPRESS_GEMINI, messages: ASK, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toBe('The sky is blue.');
      // The stream is settled (its row written) before the next test reads the balance.
      const [streamed] = await f.logCount({ modelName: EXPRESS_GEMINI, isStream: true }, 1);
      expectRow(streamed, {
        model: EXPRESS_GEMINI,
        ...usage,
        quota: formatQuota(usage),
        stream: true,
        conversion: ['openai', 'gemini'],
        path: '/v1/chat/completions',
      });
      expect(f.up.requests.map((r) => r.path)).toEqual([vertex.EXPRESS_GEMINI_PATH, vertex.EXPRESS_GEMINI_STREAM_PATH]);
      for (const sent of f.up.requests) {
        expect(sent.headers['x-goog-api-key']).toBe(vertex.EXPRESS_API_KEY);
        expect(sent.headers.authorization).toBeUndefined();
      }
    });

    it('refuses a Claude model on an express-mode channel as a key error, without calling Google or charging', async () => {
      const before = await f.quota(f.user.id);
      const error = (await openai.chat.completions
        .create({ model: EXPRESS_CLAUDE, messages: ASK })
        .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.status).toBe(500);
      expect(error.message).toContain('Claude models on Vertex AI need a service-account key');
      expect(f.up.requests).toHaveLength(0);
      expect(await f.quota(f.user.id)).toBe(before);
    });

    it('answers a clear error when Google refuses the service account, without calling the model or charging', async () => {
      const before = await f.quota(f.user.id);
      f.up.script({ path: '/refused-token', raw: json(vertex.TOKEN_ERROR, 400) });
      const error = (await openai.chat.completions
        .create({ model: VERTEX_REFUSED, messages: ASK })
        .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.message).toContain('Invalid JWT Signature');
      expect(f.up.requests.every((r) => r.path === '/refused-token')).toBe(true);
      expect(await f.quota(f.user.id)).toBe(before);
    });
  });
});
