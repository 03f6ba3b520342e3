import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as cloudflare from '../fixtures/providers/cloudflare/index.js';
import * as cohere from '../fixtures/providers/cohere/index.js';
import * as coze from '../fixtures/providers/coze/index.js';
import * as dify from '../fixtures/providers/dify/index.js';
import * as replicate from '../fixtures/providers/replicate/index.js';
import { testDatabases } from '../support/databases.js';
import { COMPLETION_RATIOS, RATIOS, startRelayFixture, type RelayFixture } from './relay-fixture.js';
import { readChatStream } from '../support/chat-stream.js';

const json = (body: unknown, status = 200) => ({ status, contentType: 'application/json', body: JSON.stringify(body) });
const ASK = [{ role: 'user' as const, content: 'Hello' }];
/** Every model of this suite: ratio 2, completion ratio 3 (embeddings ratio 1). */
const COHERE = 'platform-cohere-chat';
const COHERE_RERANK = 'platform-cohere-rerank';
const COHERE_V2 = 'platform-cohere-v2';
const DIFY = 'platform-dify-app';
const COZE = 'platform-coze-bot';
const CHAT_MODELS = [cloudflare.MODEL, COHERE, COHERE_V2, DIFY, COZE];
const quotaOf = (prompt: number, completion: number) => Math.round((prompt + completion * 3) * 2);

describe.each(testDatabases())('relay: Cloudflare Workers AI (39), Cohere (34), Dify (37), Coze (49) and Replicate (56) on %s', (kind) => {
  let f: RelayFixture;
  let openai: OpenAI;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelRatio', {
      ...RATIOS,
      ...Object.fromEntries(CHAT_MODELS.map((m) => [m, 2])),
      [cloudflare.EMBED_MODEL]: 1,
      [COHERE_RERANK]: 1,
    });
    await f.setOption('CompletionRatio', { ...COMPLETION_RATIOS, ...Object.fromEntries(CHAT_MODELS.map((m) => [m, 3])) });
    await f.channel({
      type: 39,
      key: cloudflare.TOKEN,
      other: cloudflare.ACCOUNT_ID,
      models: `${cloudflare.MODEL},${cloudflare.EMBED_MODEL}`,
    });
    await f.channel({
      type: 34,
      key: cohere.KEY,
      models: `${COHERE},${COHERE_RERANK}`,
      model_mapping: JSON.stringify({ [COHERE]: cohere.MODEL, [COHERE_RERANK]: cohere.RERANK_MODEL }),
    });
    await f.channel({
      type: 34,
      key: cohere.KEY,
      other: 'v2',
      models: COHERE_V2,
      model_mapping: JSON.stringify({ [COHERE_V2]: cohere.MODEL }),
    });
    await f.channel({ type: 37, key: dify.KEY, models: DIFY });
    await f.channel({ type: 49, key: coze.TOKEN, other: coze.BOT_ID, models: COZE });
    await f.setOption('ModelPrice', { [replicate.MODEL]: 0.003 });
    await f.channel({ type: 56, key: replicate.TOKEN, models: replicate.MODEL });
    openai = f.openai((await f.token({ unlimited_quota: true })).key);
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('calls the account OpenAI-compatible chat endpoint with the API token, answer and charge as reported', async () => {
    f.up.script({ path: cloudflare.CHAT_PATH, raw: json(cloudflare.CHAT_RESPONSE) });
    const { data, response } = await openai.chat.completions.create({ model: cloudflare.MODEL, messages: ASK }).withResponse();
    expect(data.choices[0]!.message.content).toBe('Hello from the edge.');
    expect(f.up.requests[0]).toMatchObject({ path: cloudflare.CHAT_PATH, body: { model: cloudflare.MODEL, messages: ASK } });
    expect(f.up.requests[0]!.headers.authorization).toBe(`Bearer ${cloudflare.TOKEN}`);
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({
      modelName: cloudflare.MODEL,
      promptTokens: 14,
      completionTokens: 6,
      quota: quotaOf(14, 6),
      isStream: false,
    });
  });

  it('streams with the usage chunk Cloudflare sends, billed the same', async () => {
    f.up.script({ path: cloudflare.CHAT_PATH, raw: { contentType: 'text/event-stream', body: cloudflare.CHAT_STREAM } });
    const stream = await openai.chat.completions.create({
      model: cloudflare.MODEL,
      messages: ASK,
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, usage } = await readChatStream(stream);
    expect(text).toBe('Hello from the edge.');
    expect(usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 6 });
    expect(f.up.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    const [row] = await f.logCount({ modelName: cloudflare.MODEL, isStream: true }, 1);
    expect(row).toMatchObject({ promptTokens: 14, completionTokens: 6, quota: quotaOf(14, 6) });
  });

  it('serves embeddings at the account embeddings endpoint, and passes Cloudflare errors on without a charge', async () => {
    f.up.script({ path: cloudflare.EMBED_PATH, raw: json(cloudflare.EMBED_RESPONSE) });
    const { data, response } = await openai.embeddings
      .create({ model: cloudflare.EMBED_MODEL, input: 'hello', encoding_format: 'float' })
      .withResponse();
    expect(data.data[0]!.embedding).toEqual([0.011, -0.024, 0.053]);
    expect(await f.settled(response.headers.get('x-oneapi-request-id'))).toMatchObject({ promptTokens: 5, quota: 5 });

    const before = await f.quota(f.user.id);
    f.up.script({ path: cloudflare.CHAT_PATH, raw: json(cloudflare.ERROR_AUTH, 401) });
    const error = await openai.chat.completions.create({ model: cloudflare.MODEL, messages: ASK }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(await f.quota(f.user.id)).toBe(before);
  });

  describe('Cohere', () => {
    it('converts OpenAI chat to chat v1 and back, billing the billed units', async () => {
      f.up.script({ path: '/v1/chat', raw: json(cohere.CHAT_RESPONSE) });
      const { messages, max_tokens, temperature, top_p, stop } = cohere.CHAT_REQUEST;
      const { data, response } = await openai.chat.completions
        .create({ model: COHERE, messages: messages as never, max_tokens, temperature, top_p, stop })
        .withResponse();
      expect(data.choices[0]!.message.content).toBe('Blue.');
      expect(data.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 2 });
      expect(f.up.requests[0]!.body).toEqual(cohere.CHAT_BODY);
      expect(f.up.requests[0]!.headers.authorization).toBe(`Bearer ${cohere.KEY}`);
      const row = await f.settled(response.headers.get('x-oneapi-request-id'));
      expect(row).toMatchObject({ modelName: COHERE, promptTokens: 21, completionTokens: 2, quota: quotaOf(21, 2), isStream: false });
    });

    it('streams the JSON-lines answer as an OpenAI stream with the same usage', async () => {
      f.up.script({ path: '/v1/chat', raw: { contentType: 'application/stream+json', body: cohere.STREAM } });
      const stream = await openai.chat.completions.create({
        model: COHERE,
        messages: ASK,
        stream: true,
        stream_options: { include_usage: true },
      });
      const { text, usage } = await readChatStream(stream);
      expect(text).toBe('Blue.');
      expect(usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 2 });
      const [row] = await f.logCount({ modelName: COHERE, isStream: true }, 1);
      expect(row).toMatchObject({ promptTokens: 21, completionTokens: 2, quota: quotaOf(21, 2) });
    });

    it('speaks chat v2 on a channel whose other is v2, streamed and not, with the same billed units', async () => {
      f.up.script({ path: '/v2/chat', times: 1, raw: json(cohere.V2_RESPONSE) });
      const { data, response } = await openai.chat.completions.create({ model: COHERE_V2, messages: ASK }).withResponse();
      expect(data.choices[0]!.message.content).toBe('Blue.');
      expect(f.up.requests[0]!.body).toEqual({ model: cohere.MODEL, messages: ASK, stream: false });
      const row = await f.settled(response.headers.get('x-oneapi-request-id'));
      expect(row).toMatchObject({ modelName: COHERE_V2, promptTokens: 21, completionTokens: 2, quota: quotaOf(21, 2) });
      f.up.script({ path: '/v2/chat', times: 1, raw: { contentType: 'text/event-stream', body: cohere.V2_STREAM } });
      const stream = await openai.chat.completions.create({ model: COHERE_V2, messages: ASK, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toBe('Blue.');
      const [streamed] = await f.logCount({ modelName: COHERE_V2, isStream: true }, 1);
      expect(streamed).toMatchObject({ promptTokens: 21, completionTokens: 2, quota: quotaOf(21, 2) });
    });

    it('reranks through /v1/rerank and bills the prompt estimate; errors pass on without a charge', async () => {
      f.up.script({ path: '/v1/rerank', raw: json(cohere.RERANK_RESPONSE) });
      const res = await fetch(`${f.gw.url}/v1/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer ${(openai as unknown as { apiKey: string }).apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...cohere.RERANK_REQUEST, model: COHERE_RERANK }),
      });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.results).toEqual(cohere.RERANK_RESPONSE.results);
      expect(body.usage.prompt_tokens).toBeGreaterThan(0);
      expect(f.up.requests[0]).toMatchObject({ path: '/v1/rerank', body: { ...cohere.RERANK_REQUEST, model: cohere.RERANK_MODEL } });
      const row = await f.settled(res.headers.get('x-oneapi-request-id'));
      expect(row).toMatchObject({ modelName: COHERE_RERANK, promptTokens: body.usage.prompt_tokens, quota: body.usage.prompt_tokens });

      const before = await f.quota(f.user.id);
      f.up.script({ path: '/v1/chat', raw: json(cohere.ERROR_BODY, 401) });
      const error = await openai.chat.completions.create({ model: COHERE, messages: ASK }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('invalid api token');
      expect(await f.quota(f.user.id)).toBe(before);
    });
  });

  describe('Dify', () => {
    it('asks the chat app in blocking mode with the user, answers and bills metadata.usage', async () => {
      f.up.script({ path: dify.PATH, raw: json(dify.BLOCKING_RESPONSE) });
      const { data, response } = await openai.chat.completions
        .create({ model: DIFY, messages: dify.CHAT_REQUEST.messages as never, user: dify.CHAT_REQUEST.user })
        .withResponse();
      expect(data.choices[0]!.message.content).toBe('Dify is an LLM app platform.');
      expect(f.up.requests[0]!.body).toEqual(dify.BLOCKING_BODY);
      expect(f.up.requests[0]!.headers.authorization).toBe(`Bearer ${dify.KEY}`);
      const row = await f.settled(response.headers.get('x-oneapi-request-id'));
      expect(row).toMatchObject({ modelName: DIFY, promptTokens: 1033, completionTokens: 128, quota: quotaOf(1033, 128) });
    });

    it('streams the answer, the workflow and node events as reasoning lines (DIFY_DEBUG), and bills message_end usage plus one token a line', async () => {
      f.up.script({ path: dify.PATH, raw: { contentType: 'text/event-stream', body: dify.STREAM } });
      const stream = await openai.chat.completions.create({
        model: DIFY,
        messages: ASK,
        stream: true,
        stream_options: { include_usage: true },
      });
      const { text, reasoning, usage } = await readChatStream(stream);
      expect(text).toBe(dify.STREAM_TEXT);
      expect(reasoning).toBe('Workflow: wf\nNode: llm succeeded\n');
      expect(usage).toMatchObject({ prompt_tokens: 1033, completion_tokens: 130 });
      expect(f.up.requests[0]!.body).toMatchObject({ response_mode: 'streaming', user: 'new-api' });
      const [row] = await f.logCount({ modelName: DIFY, isStream: true }, 1);
      expect(row).toMatchObject({ promptTokens: 1033, completionTokens: 130, quota: quotaOf(1033, 130) });
    });

    it('fails cleanly on an app error, streamed or not, without a charge', async () => {
      const before = await f.quota(f.user.id);
      f.up.script({ path: dify.PATH, times: 1, raw: json(dify.ERROR_BODY, 400) });
      const error = await openai.chat.completions.create({ model: DIFY, messages: ASK }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('App unavailable');
      f.up.script({ path: dify.PATH, times: 1, raw: { contentType: 'text/event-stream', body: dify.STREAM_ERROR } });
      const streamed = await openai.chat.completions.create({ model: DIFY, messages: ASK, stream: true }).catch((e: unknown) => e);
      expect(streamed).toBeInstanceOf(OpenAI.APIError);
      expect(await f.quota(f.user.id)).toBe(before);
    });
  });

  describe('Coze', () => {
    it('answers a single (non-stream) request from the bot stream read whole, billed with chat.completed usage', async () => {
      f.up.script({ path: coze.PATH, raw: { contentType: 'text/event-stream', body: coze.STREAM } });
      const { data, response } = await openai.chat.completions
        .create({ model: COZE, messages: coze.CHAT_REQUEST.messages as never, user: coze.CHAT_REQUEST.user })
        .withResponse();
      expect(data.choices[0]!.message.content).toBe(coze.STREAM_TEXT);
      expect(data.usage).toMatchObject({ prompt_tokens: 380, completion_tokens: 18 });
      expect(f.up.requests[0]!.body).toEqual(coze.CHAT_BODY);
      expect(f.up.requests[0]!.headers.authorization).toBe(`Bearer ${coze.TOKEN}`);
      const row = await f.settled(response.headers.get('x-oneapi-request-id'));
      expect(row).toMatchObject({ modelName: COZE, promptTokens: 380, completionTokens: 18, quota: quotaOf(380, 18), isStream: false });
    });

    it('streams the bot answer deltas with the same usage', async () => {
      f.up.script({ path: coze.PATH, raw: { contentType: 'text/event-stream', body: coze.STREAM } });
      const stream = await openai.chat.completions.create({
        model: COZE,
        messages: ASK,
        stream: true,
        stream_options: { include_usage: true },
      });
      const { text, usage } = await readChatStream(stream);
      expect(text).toBe(coze.STREAM_TEXT);
      expect(usage).toMatchObject({ prompt_tokens: 380, completion_tokens: 18 });
      const [row] = await f.logCount({ modelName: COZE, isStream: true }, 1);
      expect(row).toMatchObject({ promptTokens: 380, completionTokens: 18, quota: quotaOf(380, 18) });
    });

    it('fails cleanly on an error answer or a failed chat, without a charge', async () => {
      const before = await f.quota(f.user.id);
      f.up.script({ path: coze.PATH, times: 1, raw: json(coze.ERROR_BODY) });
      const error = await openai.chat.completions.create({ model: COZE, messages: ASK }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('authentication is invalid');
      f.up.script({ path: coze.PATH, times: 1, raw: { contentType: 'text/event-stream', body: coze.STREAM_FAILED } });
      const failed = await openai.chat.completions.create({ model: COZE, messages: ASK }).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(OpenAI.APIError);
      expect((failed as InstanceType<typeof OpenAI.APIError>).message).toContain('not published');
      expect(await f.quota(f.user.id)).toBe(before);
    });
  });

  describe('Replicate', () => {
    it('generates images through a waited prediction, answers URLs, and bills per image at the model price', async () => {
      f.up.script({ path: replicate.PATH, raw: { ...json(replicate.PREDICTION), status: 201 } });
      const { data, response } = await openai.images
        .generate({ model: replicate.MODEL, prompt: replicate.IMAGE_REQUEST.prompt, size: '1792x1024', n: 2, output_format: 'webp' })
        .withResponse();
      expect(data.data?.map((d) => d.url)).toEqual(replicate.PREDICTION.output);
      expect(f.up.requests[0]!.body).toEqual(replicate.PREDICTION_BODY);
      expect(f.up.requests[0]!.headers.prefer).toBe('wait');
      expect(f.up.requests[0]!.headers.authorization).toBe(`Bearer ${replicate.TOKEN}`);
      // 0.003 USD × 500000 quota per USD × 2 images.
      expect(await f.settled(response.headers.get('x-oneapi-request-id'))).toMatchObject({ modelName: replicate.MODEL, quota: 3000 });
    });

    it('refuses chat on an image-only channel with a 400, and fails a failed prediction without a charge', async () => {
      const chat = await openai.chat.completions.create({ model: replicate.MODEL, messages: ASK }).catch((e: unknown) => e);
      expect(chat).toBeInstanceOf(OpenAI.APIError);
      expect((chat as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
      const before = await f.quota(f.user.id);
      f.up.script({ path: replicate.PATH, times: 1, raw: { ...json(replicate.PREDICTION_FAILED), status: 201 } });
      const failed = await openai.images.generate({ model: replicate.MODEL, prompt: 'x' }).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(OpenAI.APIError);
      expect((failed as InstanceType<typeof OpenAI.APIError>).message).toContain('NSFW');
      f.up.script({ path: replicate.PATH, times: 1, raw: json(replicate.ERROR_AUTH, 401) });
      expect(await openai.images.generate({ model: replicate.MODEL, prompt: 'x' }).catch((e: unknown) => e)).toBeInstanceOf(
        OpenAI.APIError,
      );
      expect(await f.quota(f.user.id)).toBe(before);
    });
  });
});
