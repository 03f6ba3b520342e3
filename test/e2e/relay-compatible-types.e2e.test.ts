import Anthropic from '@anthropic-ai/sdk';
import { ChannelRouter } from '@gw/channel';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPLY } from '../fake-upstream/index.js';
import { REASONER_USAGE_TOP_LEVEL_CACHE, reasonerAnswer, reasonerStream } from '../fixtures/relay-formats/deepseek.js';
import { testDatabases } from '../support/databases.js';
import { COMPLETION_RATIOS, RATIOS, startRelayFixture, waitFor, type RelayFixture } from './relay-fixture.js';

/**
 * Channel types that speak OpenAI's wire format with their own URL rules (DeepSeek, MiniMax, Azure), called
 * with the official `openai` client through the gateway to the fake upstream, checking the URL and auth the
 * provider gets, the answer, the stream and the exact charge.
 */
const DEEPSEEK = 'ds-reasoner';
const AZURE = 'az-gpt-4.1';
const MINIMAX = 'mm-chat';
/** Served only by an Azure channel imported with a creation time before new-api's 2025-05-10 cutoff. */
const AZURE_OLD = 'az-old-gpt-3.5-turbo';
const MODEL_RATIO = 2;
const COMPLETION_RATIO = 3;
const CACHE_RATIO = 0.1;

/** new-api's formula: uncached prompt + cached prompt at the cache ratio + completion at its ratio, times the model ratio. */
function quota(prompt: number, completion: number, cached = 0): number {
  return Math.round((prompt - cached + cached * CACHE_RATIO + completion * COMPLETION_RATIO) * MODEL_RATIO);
}

describe.each(testDatabases())('relay: OpenAI-compatible channel types on %s', (kind) => {
  let f: RelayFixture;
  let key: string;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    const mine = [DEEPSEEK, AZURE, MINIMAX, AZURE_OLD];
    await f.setOption('ModelRatio', { ...RATIOS, ...Object.fromEntries(mine.map((m) => [m, MODEL_RATIO])) });
    await f.setOption('CompletionRatio', { ...COMPLETION_RATIOS, ...Object.fromEntries(mine.map((m) => [m, COMPLETION_RATIO])) });
    await f.setOption('CacheRatio', { [DEEPSEEK]: CACHE_RATIO });
    await f.channel({ type: 43, models: DEEPSEEK, key: 'sk-deepseek' });
    await f.channel({ type: 3, models: AZURE, key: 'azure-key', other: '2024-10-21' });
    await f.channel({ type: 35, models: MINIMAX, key: 'sk-minimax' });
    key = (await f.token({ unlimited_quota: true })).key;
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  const ask = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'Which is smaller, 9.11 or 9.9?' }] });

  it('relays DeepSeek reasoning_content and bills reasoning as completion tokens and cache hits at the cache ratio', async () => {
    f.up.script({ path: '/v1/chat/completions', raw: { contentType: 'application/json', body: JSON.stringify(reasonerAnswer(DEEPSEEK)) } });
    const { data, response } = await f.openai(key).chat.completions.create(ask(DEEPSEEK)).withResponse();
    expect(data.choices[0]!.message.content).toBe('9.11 is smaller than 9.9.');
    expect((data.choices[0]!.message as unknown as { reasoning_content: string }).reasoning_content).toBe('Compare the tenths: 1 < 9.');
    expect(data.usage).toMatchObject({ completion_tokens: 120, completion_tokens_details: { reasoning_tokens: 80 } });
    expect(f.up.requests[0]).toMatchObject({ path: '/v1/chat/completions', headers: { authorization: 'Bearer sk-deepseek' } });

    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 30, completionTokens: 120, quota: quota(30, 120, 20) });
    expect(JSON.parse(row.other).cache_tokens).toBe(20);
  });

  it("reads DeepSeek's top-level prompt_cache_hit_tokens when the details are absent", async () => {
    const body = JSON.stringify(reasonerAnswer(DEEPSEEK, REASONER_USAGE_TOP_LEVEL_CACHE));
    f.up.script({ path: '/v1/chat/completions', raw: { contentType: 'application/json', body } });
    const { response } = await f.openai(key).chat.completions.create(ask(DEEPSEEK)).withResponse();
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 30, completionTokens: 120, quota: quota(30, 120, 20) });
  });

  it('streams DeepSeek reasoning deltas before the content and bills the usage of the last chunk', async () => {
    f.up.script({ path: '/v1/chat/completions', raw: { contentType: 'text/event-stream', body: reasonerStream(DEEPSEEK) } });
    const { data: stream, response } = await f
      .openai(key)
      .chat.completions.create({ ...ask(DEEPSEEK), stream: true })
      .withResponse();
    let reasoning = '';
    let content = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string | null } | undefined;
      if (delta?.reasoning_content) {
        expect(content, 'reasoning comes first').toBe('');
        reasoning += delta.reasoning_content;
      }
      content += delta?.content ?? '';
    }
    expect(reasoning).toBe('Compare the tenths: 1 < 9.');
    expect(content).toBe('9.11 is smaller than 9.9.');
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 30, completionTokens: 120, quota: quota(30, 120, 20), isStream: true });
  });

  it('calls Azure on the deployment with api-key and the channel api-version, keeping dots for a new channel', async () => {
    const { data, response } = await f.openai(key).chat.completions.create(ask(AZURE)).withResponse();
    expect(data.choices[0]!.message.content).toBe(DEFAULT_REPLY);
    const sent = f.up.requests[0]!;
    expect(sent.path).toBe('/openai/deployments/az-gpt-4.1/chat/completions?api-version=2024-10-21');
    expect(sent.headers['api-key']).toBe('azure-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toMatchObject({ model: AZURE });
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 10, completionTokens: 20, quota: quota(10, 20) });
  });

  it('drops the dots from the deployment of an Azure channel created before 2025-05-10, as new-api does', async () => {
    const id = await f.channel({ type: 3, models: AZURE_OLD, key: 'azure-old-key', other: '2024-02-01' });
    await f.ds.getRepository('channels').update(id, { createdTime: Date.UTC(2024, 0, 1) / 1000 });
    await f.gw.gateway.app.get(ChannelRouter).reload();
    const { data } = await f.openai(key).chat.completions.create(ask(AZURE_OLD)).withResponse();
    expect(data.choices[0]!.message.content).toBe(DEFAULT_REPLY);
    expect(f.up.requests[0]!.path).toBe('/openai/deployments/az-old-gpt-35-turbo/chat/completions?api-version=2024-02-01');
    expect(f.up.requests[0]!.headers['api-key']).toBe('azure-old-key');
  });

  it('streams from Azure and bills the streamed usage', async () => {
    const { data: stream, response } = await f
      .openai(key)
      .chat.completions.create({ ...ask(AZURE), stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let content = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(content).toBe(DEFAULT_REPLY);
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 20 });
    expect(f.up.requests[0]!.path).toBe('/openai/deployments/az-gpt-4.1/chat/completions?api-version=2024-10-21');
    expect(f.up.requests[0]!.headers.accept).toBe('text/event-stream');
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 10, completionTokens: 20, quota: quota(10, 20), isStream: true });
  });

  it('calls the Azure Responses API on its v1 surface with the model in the body', async () => {
    const { data, response } = await f.openai(key).responses.create({ model: AZURE, input: 'hi' }).withResponse();
    expect(data.output_text).toBe(DEFAULT_REPLY);
    const sent = f.up.requests[0]!;
    expect(sent.path).toBe('/openai/v1/responses?api-version=preview');
    expect(sent.headers['api-key']).toBe('azure-key');
    expect(sent.body).toMatchObject({ model: AZURE, input: 'hi' });
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 10, completionTokens: 20, quota: quota(10, 20) });
  });

  it('maps an Azure error to an OpenAI error for the client and charges nothing', async () => {
    f.up.script({ path: '/openai/deployments/', status: 404, errorMessage: 'The API deployment for this resource does not exist.' });
    const before = await f.quota(f.user.id);
    const rowsBefore = (await f.logs({ userId: f.user.id, modelName: AZURE, type: 2 })).length;
    const error = await f
      .openai(key)
      .chat.completions.create(ask(AZURE))
      .then(
        () => {
          throw new Error('expected the call to fail');
        },
        (e: unknown) => e as { status: number; message: string },
      );
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/deployment/);
    await waitFor(async () => ((await f.quota(f.user.id)) === before ? true : undefined), 'the refund');
    expect(await f.logs({ userId: f.user.id, modelName: AZURE, type: 2 })).toHaveLength(rowsBefore);
  });

  it('posts MiniMax chats to its chatcompletion_v2 path with the bearer key', async () => {
    const answer = {
      id: '02a6a1c1b2c3',
      object: 'chat.completion',
      created: 1737000000,
      model: MINIMAX,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi from MiniMax' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
      base_resp: { status_code: 0, status_msg: '' },
    };
    f.up.script({ path: '/v1/text/chatcompletion_v2', raw: { contentType: 'application/json', body: JSON.stringify(answer) } });
    const { data, response } = await f.openai(key).chat.completions.create(ask(MINIMAX)).withResponse();
    expect(data.choices[0]!.message.content).toBe('Hi from MiniMax');
    expect(f.up.requests[0]).toMatchObject({ path: '/v1/text/chatcompletion_v2', headers: { authorization: 'Bearer sk-minimax' } });
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 12, completionTokens: 5, quota: quota(12, 5) });
  });

  it('answers an Anthropic Messages client from DeepSeek with a thinking block and the same charge', async () => {
    f.up.script({ path: '/v1/chat/completions', raw: { contentType: 'application/json', body: JSON.stringify(reasonerAnswer(DEEPSEEK)) } });
    const anthropic = new Anthropic({ apiKey: key, baseURL: f.gw.url, maxRetries: 0 });
    const { data, response } = await anthropic.messages
      .create({ model: DEEPSEEK, max_tokens: 256, messages: [{ role: 'user', content: 'Which is smaller, 9.11 or 9.9?' }] })
      .withResponse();
    expect(data.content).toEqual([
      expect.objectContaining({ type: 'thinking', thinking: 'Compare the tenths: 1 < 9.' }),
      expect.objectContaining({ type: 'text', text: '9.11 is smaller than 9.9.' }),
    ]);
    expect(data.usage).toMatchObject({ output_tokens: 120, cache_read_input_tokens: 20 });
    expect(f.up.requests[0]).toMatchObject({ path: '/v1/chat/completions', headers: { authorization: 'Bearer sk-deepseek' } });
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 30, completionTokens: 120, quota: quota(30, 120, 20) });
  });

  it('serves an Anthropic Messages stream from an Azure deployment', async () => {
    const anthropic = new Anthropic({ apiKey: key, baseURL: f.gw.url, maxRetries: 0 });
    const { data: stream, response } = await anthropic.messages
      .create({ model: AZURE, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    let text = '';
    let outputTokens = 0;
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      if (event.type === 'message_delta') outputTokens = event.usage.output_tokens;
    }
    expect(text).toBe(DEFAULT_REPLY);
    expect(outputTokens).toBe(20);
    const sent = f.up.requests[0]!;
    expect(sent.path).toBe('/openai/deployments/az-gpt-4.1/chat/completions?api-version=2024-10-21');
    expect(sent.headers['api-key']).toBe('azure-key');
    expect(sent.body).toMatchObject({ model: AZURE, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ promptTokens: 10, completionTokens: 20, quota: quota(10, 20), isStream: true });
  });
});
