import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as cloudflare from '../fixtures/providers/cloudflare/index.js';
import { testDatabases } from '../support/databases.js';
import { COMPLETION_RATIOS, RATIOS, startRelayFixture, type RelayFixture } from './relay-fixture.js';

const json = (body: unknown, status = 200) => ({ status, contentType: 'application/json', body: JSON.stringify(body) });
const ASK = [{ role: 'user' as const, content: 'Hello' }];
/** Every model of this suite: ratio 2, completion ratio 3 (embeddings ratio 1). */
const CHAT_MODELS = [cloudflare.MODEL];
const quotaOf = (prompt: number, completion: number) => Math.round((prompt + completion * 3) * 2);

describe.each(testDatabases())('relay: Cloudflare Workers AI (39) on %s', (kind) => {
  let f: RelayFixture;
  let openai: OpenAI;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelRatio', { ...RATIOS, ...Object.fromEntries(CHAT_MODELS.map((m) => [m, 2])), [cloudflare.EMBED_MODEL]: 1 });
    await f.setOption('CompletionRatio', { ...COMPLETION_RATIOS, ...Object.fromEntries(CHAT_MODELS.map((m) => [m, 3])) });
    await f.channel({
      type: 39,
      key: cloudflare.TOKEN,
      other: cloudflare.ACCOUNT_ID,
      models: `${cloudflare.MODEL},${cloudflare.EMBED_MODEL}`,
    });
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
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
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
});
