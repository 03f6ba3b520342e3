import Anthropic from '@anthropic-ai/sdk';
import { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BAIDU_KEY, DASHSCOPE_KEY, type FakeNativeUpstream, PALM_KEY, startFakeNativeUpstream } from '../fake-upstream/native/index.js';
import * as aiproxy from '../fixtures/providers/ai-proxy-library/fixtures.js';
import * as baidu from '../fixtures/providers/baidu/fixtures.js';
import * as dashscope from '../fixtures/providers/dashscope/fixtures.js';
import * as hunyuan from '../fixtures/providers/hunyuan/fixtures.js';
import * as moka from '../fixtures/providers/mokaai/fixtures.js';
import * as ollama from '../fixtures/providers/ollama/fixtures.js';
import * as palm from '../fixtures/providers/palm/fixtures.js';
import * as spark from '../fixtures/providers/spark/fixtures.js';
import * as zhipu from '../fixtures/providers/zhipu-v3/fixtures.js';
import { testDatabases } from '../support/databases.js';
import { RATIOS, type RelayFixture, startRelayFixture } from './relay-fixture.js';

const MODEL_RATIO = 2;
const COMPLETION_RATIO = 3;
const CACHE_RATIO = 0.1;
const EMBED_RATIO = 0.5;

/** new-api's ratio formula: cached prompt tokens at the cache ratio, completion at the completion ratio. */
function quota(u: { prompt: number; completion: number; cached?: number }): number {
  const cached = u.cached ?? 0;
  return Math.round((u.prompt - cached + cached * CACHE_RATIO + u.completion * COMPLETION_RATIO) * MODEL_RATIO);
}

/** One gateway model per provider, mapped to the provider's own model name. */
const CHATS = {
  baidu: { model: 'nat-ernie', type: 15, upstream: 'ERNIE-4.0-8K', key: BAIDU_KEY, fx: baidu, text: 'ERNIE says hi.' },
  zhipu: { model: 'nat-glm', type: 16, upstream: 'chatglm_std', key: zhipu.KEY, fx: zhipu, text: zhipu.CHAT_TEXT },
  dashscope: { model: 'nat-qwen', type: 17, upstream: 'qwen-plus', key: DASHSCOPE_KEY, fx: dashscope, text: 'Qwen says hi.' },
  hunyuan: { model: 'nat-hunyuan', type: 23, upstream: 'hunyuan-lite', key: hunyuan.KEY, fx: hunyuan, text: 'Hunyuan says hi.' },
  ollama: { model: 'nat-llama', type: 4, upstream: 'llama3.1', key: 'ollama-proxy-key', fx: ollama, text: 'Llama says hi.' },
} as const;
const PALM = 'nat-palm';
const SPARK = 'nat-spark';
const SPARK_BAD_KEY = 'nat-spark-bad-key';
const LIBRARY = 'nat-library';
const EMBEDS = { baidu: 'nat-ernie-emb', dashscope: 'nat-qwen-emb', ollama: 'nat-llama-emb', moka: 'nat-m3e' } as const;

describe.each(testDatabases())('relay: native provider adaptors on %s', (kind) => {
  let f: RelayFixture;
  let native: FakeNativeUpstream;
  let key: string;
  const ask = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'Say hi' }] });
  const rowOf = async (requestId: string | null | undefined) => {
    expect(requestId).toBeTruthy();
    return f.settled(requestId!);
  };

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    native = await startFakeNativeUpstream();
    const chatModels = [...Object.values(CHATS).map((c) => c.model), PALM, LIBRARY, SPARK, SPARK_BAD_KEY];
    await f.setOption('ModelRatio', {
      ...RATIOS,
      ...Object.fromEntries(chatModels.map((m) => [m, MODEL_RATIO])),
      ...Object.fromEntries(Object.values(EMBEDS).map((m) => [m, EMBED_RATIO])),
    });
    await f.setOption('CompletionRatio', Object.fromEntries(chatModels.map((m) => [m, COMPLETION_RATIO])));
    await f.setOption('CacheRatio', { [CHATS.dashscope.model]: CACHE_RATIO });
    const channel = (type: number, key: string, mapping: Record<string, string>, other = '') =>
      f.channel({ type, key, base_url: native.url, models: Object.keys(mapping).join(','), model_mapping: JSON.stringify(mapping), other });
    await channel(15, BAIDU_KEY, { [CHATS.baidu.model]: CHATS.baidu.upstream, [EMBEDS.baidu]: 'Embedding-V1' });
    await channel(16, zhipu.KEY, { [CHATS.zhipu.model]: CHATS.zhipu.upstream });
    await channel(17, DASHSCOPE_KEY, { [CHATS.dashscope.model]: CHATS.dashscope.upstream, [EMBEDS.dashscope]: 'text-embedding-v1' });
    await channel(23, hunyuan.KEY, { [CHATS.hunyuan.model]: CHATS.hunyuan.upstream });
    await channel(4, 'ollama-proxy-key', { [CHATS.ollama.model]: CHATS.ollama.upstream, [EMBEDS.ollama]: 'all-minilm' });
    await channel(11, PALM_KEY, { [PALM]: 'PaLM-2' });
    await channel(21, 'library-key', { [LIBRARY]: 'gpt-4o-mini' }, aiproxy.LIBRARY_ID);
    await channel(44, 'moka-key', { [EMBEDS.moka]: 'm3e-base' });
    await channel(18, spark.KEY, { [SPARK]: 'SparkDesk-v3.5' });
    await channel(18, 'fixture-app-id|wrong-secret|fixture-api-key', { [SPARK_BAD_KEY]: 'SparkDesk-v3.5' });
    key = (await f.token({ unlimited_quota: true })).key;
  });
  afterAll(async () => {
    await f?.close();
    await native?.close();
  });
  beforeEach(() => native.reset());

  describe.each(Object.entries(CHATS))('%s', (name, c) => {
    it('answers from the openai client with the provider usage, billed exactly', async () => {
      const { data, response } = await f.openai(key).chat.completions.create(ask(c.model)).withResponse();
      expect(data.choices[0]!.message.content).toBe(c.text);
      const want = c.fx.CHAT_USAGE;
      expect(data.usage).toMatchObject({ prompt_tokens: want.prompt, completion_tokens: want.completion });
      const row = await rowOf(response.headers.get('x-oneapi-request-id'));
      expect(row).toMatchObject({
        modelName: c.model,
        promptTokens: want.prompt,
        completionTokens: want.completion,
        quota: quota(want),
        isStream: false,
      });
      expect(native.requests.filter((r) => r.provider === name || (name === 'zhipu' && r.provider === 'zhipu_v3')).length).toBeGreaterThan(
        0,
      );
    });

    it('streams the provider events as OpenAI chunks with the last usage, billed exactly', async () => {
      const { data: stream, response } = await f
        .openai(key)
        .chat.completions.create({ ...ask(c.model), stream: true, stream_options: { include_usage: true } })
        .withResponse();
      let text = '';
      let usage: any;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      const want = c.fx.STREAM_USAGE;
      expect(text).toBe(c.fx.STREAM_TEXT);
      expect(usage).toMatchObject({ prompt_tokens: want.prompt, completion_tokens: want.completion });
      const row = await rowOf(response.headers.get('x-oneapi-request-id'));
      expect(row).toMatchObject({ promptTokens: want.prompt, completionTokens: want.completion, quota: quota(want), isStream: true });
    });

    it("relays the provider's error with its message and charges nothing", async () => {
      native.failNext(name === 'zhipu' ? 'zhipu_v3' : name);
      const before = await f.quota(f.user.id);
      const error = await f
        .openai(key)
        .chat.completions.create(ask(c.model))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIError);
      const fixtureError = c.fx.ERROR as any;
      const message =
        fixtureError.error_msg ?? fixtureError.msg ?? fixtureError.message ?? fixtureError.error ?? fixtureError.Response?.Error?.Message;
      expect((error as APIError).message).toContain(message);
      expect((error as APIError).status).toBeGreaterThanOrEqual(400);
      expect(await f.quota(f.user.id)).toBe(before);
    });
  });

  it('Baidu: the cached OAuth token is reused (no second token call) and sent as access_token, never the secret', async () => {
    await f.openai(key).chat.completions.create(ask(CHATS.baidu.model));
    await f.openai(key).chat.completions.create(ask(CHATS.baidu.model));
    const calls = native.requests.filter((r) => r.provider === 'baidu');
    expect(calls.filter((r) => r.path.startsWith('/oauth/'))).toHaveLength(0); // cached by the earlier tests
    for (const call of calls) {
      expect(call.path).toBe(`/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro?access_token=${baidu.ACCESS_TOKEN.access_token}`);
      expect(JSON.stringify(call.headers)).not.toContain('fixture-sk');
    }
  });

  it('DashScope: X-DashScope-SSE only when streaming; the Anthropic SDK is served from it with cache and reasoning', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: f.gw.url, maxRetries: 0 });
    const message = await client.messages.create({
      model: CHATS.dashscope.model,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Say hi' }],
    });
    expect(message.content.find((block) => block.type === 'text')).toMatchObject({ text: 'Qwen says hi.' });
    expect(message.usage).toMatchObject({ input_tokens: 8, cache_read_input_tokens: 32, output_tokens: 9 });
    const stream = client.messages.stream({
      model: CHATS.dashscope.model,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Say hi' }],
    });
    const final = await stream.finalMessage();
    expect(final.content.map((block) => (block.type === 'text' ? block.text : '')).join('')).toBe(dashscope.STREAM_TEXT);
    expect(final.usage.output_tokens).toBe(7);
    const sent = native.requests.filter((r) => r.provider === 'dashscope');
    expect(sent.map((r) => r.headers['x-dashscope-sse'])).toEqual([undefined, 'enable']);
    expect(sent[1]!.body.parameters).toMatchObject({ result_format: 'message', incremental_output: true, max_tokens: 64 });
  });

  it('Hunyuan: sends the action, version and a TC3 signature the fake verified over the exact body', async () => {
    await f.openai(key).chat.completions.create(ask(CHATS.hunyuan.model));
    const sent = native.requests.find((r) => r.provider === 'hunyuan')!;
    expect(sent.headers).toMatchObject({ 'x-tc-action': 'ChatCompletions', 'x-tc-version': '2023-09-01' });
    expect(String(sent.headers.authorization)).toMatch(
      /^TC3-HMAC-SHA256 Credential=AKIDfixtureSecretId\/\d{4}-\d\d-\d\d\/hunyuan\/tc3_request, /,
    );
    expect(sent.body).toEqual({ Model: 'hunyuan-lite', Messages: [{ Role: 'user', Content: 'Say hi' }] });
  });

  it.each([
    ['PaLM2', PALM, palm.CHAT_TEXT],
    ['AI Proxy library', LIBRARY, aiproxy.CHAT_TEXT],
  ])('%s: answers and streams, counted locally (no usage upstream) and billed on that count', async (_name, model, text) => {
    const { data, response } = await f.openai(key).chat.completions.create(ask(model)).withResponse();
    expect(data.choices[0]!.message.content).toBe(text);
    const row = await rowOf(response.headers.get('x-oneapi-request-id'));
    expect(row.completionTokens).toBeGreaterThan(0);
    expect(row.quota).toBe(quota({ prompt: row.promptTokens, completion: row.completionTokens }));

    const stream = await f.openai(key).chat.completions.create({ ...ask(model), stream: true });
    let streamed = '';
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? '';
    expect(streamed).toBe(text);
  });

  it.each([
    ['Baidu', EMBEDS.baidu, 6, [0.125, 0.75]],
    ['DashScope', EMBEDS.dashscope, 8, [-0.125, 1]],
    ['Ollama', EMBEDS.ollama, 8, ollama.EMBEDDING.embeddings[0]],
    ['MokaAI M3E', EMBEDS.moka, 5, moka.EMBEDDING.data[0]!.embedding],
  ])('%s embeddings: OpenAI answer in input order, billed on the provider count', async (_name, model, prompt, first) => {
    const { data, response } = await f
      .openai(key)
      .embeddings.create({ model, input: ['first', 'second'], encoding_format: 'float' })
      .withResponse();
    expect(data.data[0]!.embedding).toEqual(first);
    expect(data.usage.prompt_tokens).toBe(prompt);
    const row = await rowOf(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ modelName: model, promptTokens: prompt, quota: Math.round(prompt * EMBED_RATIO) });
  });

  describe('iFlytek Spark over its WebSocket', () => {
    it('answers from the signed socket with the frames joined, billed on the last usage', async () => {
      const { data, response } = await f.openai(key).chat.completions.create(ask(SPARK)).withResponse();
      expect(data.choices[0]!.message.content).toBe(spark.TEXT);
      expect(data.usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 5 });
      const row = await rowOf(response.headers.get('x-oneapi-request-id'));
      expect(row).toMatchObject({ promptTokens: 14, completionTokens: 5, quota: quota(spark.USAGE), isStream: false });
      const sent = native.requests.find((r) => r.provider === 'spark')!;
      expect(sent.path).toMatch(/^\/v3\.5\/chat\?authorization=/);
      expect(sent.body).toMatchObject({ header: { app_id: 'fixture-app-id' }, parameter: { chat: { domain: 'generalv3.5' } } });
    });

    it('streams frame by frame as OpenAI chunks', async () => {
      const { data: stream, response } = await f
        .openai(key)
        .chat.completions.create({ ...ask(SPARK), stream: true, stream_options: { include_usage: true } })
        .withResponse();
      let text = '';
      let usage: { prompt_tokens: number } | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe(spark.TEXT);
      expect(usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 5 });
      const row = await rowOf(response.headers.get('x-oneapi-request-id'));
      expect(row).toMatchObject({ quota: quota(spark.USAGE), isStream: true });
    });

    it('relays an error frame and a refused handshake as errors, charging nothing', async () => {
      const before = await f.quota(f.user.id);
      native.failNext('spark');
      const audit = await f
        .openai(key)
        .chat.completions.create({ ...ask(SPARK), stream: true })
        .catch((e: unknown) => e);
      expect((audit as APIError).message).toContain('input content audit failed (code 10013)');
      const refused = await f
        .openai(key)
        .chat.completions.create(ask(SPARK_BAD_KEY))
        .catch((e: unknown) => e);
      expect((refused as APIError).status).toBe(502);
      expect((refused as APIError).message).toContain('Spark websocket connection failed');
      expect(await f.quota(f.user.id)).toBe(before);
    });
  });

  it('serves Gemini generateContent and the Responses API from native providers through the hub', async () => {
    const res = await fetch(`${f.gw.url}/v1beta/models/${CHATS.zhipu.model}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say hi' }] }] }),
    });
    const gemini = await res.json();
    expect(gemini.candidates[0].content.parts[0].text).toBe(zhipu.CHAT_TEXT);
    expect(gemini.usageMetadata).toMatchObject({ promptTokenCount: 11, candidatesTokenCount: 6 });
    expect(native.requests.find((r) => r.provider === 'zhipu_v3')!.body.prompt).toEqual([{ role: 'user', content: 'Say hi' }]);

    const { data, response } = await f.openai(key).responses.create({ model: CHATS.baidu.model, input: 'Say hi' }).withResponse();
    expect(data.output_text).toBe('ERNIE says hi.');
    const row = await rowOf(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 12, completionTokens: 7, quota: quota(baidu.CHAT_USAGE) });
  });

  it('answers 400 to a route a native provider does not serve, and never calls it', async () => {
    const res = await fetch(`${f.gw.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHATS.zhipu.model, prompt: 'hi' }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('does not serve');
    expect(native.requests).toHaveLength(0);
  });
});
