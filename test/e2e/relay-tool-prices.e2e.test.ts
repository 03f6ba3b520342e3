import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RelayFixture, startRelayFixture } from './relay-fixture.js';

/**
 * Hosted tool calls billed per call on top of the tokens (new-api's tool_price_setting): Anthropic's server-side
 * web search, the Responses API's web_search_call and file_search_call items (streamed or not), and a chat with a
 * search-preview model, through the official clients. Every model here has a fixed price of 1000 quota a call,
 * so what a row charges above 1000 is the tools.
 */
const CLAUDE = 'claude-searcher';
const RESPONSES = 'gpt-4o-researcher';
const SEARCH_CHAT = 'gpt-4o-search-preview';
const GEMINI = 'gemini-3-pro-preview';
/** A client's name for GEMINI, mapped by the channel: grounding is billed by the model Google ran. */
const GEMINI_ALIAS = 'house-searcher';
const BASE = 1000;
/** US$ per 1000 calls → quota at 500000 per US$. */
const toolQuota = (calls: number, price: number) => (calls * price * 500_000) / 1000;
const json = (body: unknown) => ({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
const other = (row: any) => (typeof row.other === 'string' ? JSON.parse(row.other) : row.other);

const MESSAGE = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: CLAUDE,
  content: [{ type: 'text', text: 'It is sunny.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 100, output_tokens: 20, server_tool_use: { web_search_requests: 2 } },
};
const RESPONSE = {
  id: 'resp_1',
  object: 'response',
  created_at: 1764400000,
  status: 'completed',
  model: RESPONSES,
  output: [
    { type: 'web_search_call', id: 'ws_1', status: 'completed' },
    { type: 'web_search_call', id: 'ws_2', status: 'completed' },
    { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['q'] },
    {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
    },
  ],
  usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
};

describe('relay: tool calls billed per call', () => {
  let f: RelayFixture;
  let key: string;

  beforeAll(async () => {
    f = await startRelayFixture('sqlite');
    await f.setOption('ModelPrice', { [CLAUDE]: 0.002, [RESPONSES]: 0.002, [SEARCH_CHAT]: 0.002, [GEMINI]: 0.002, [GEMINI_ALIAS]: 0.002 });
    await f.channel({
      type: 24,
      key: 'gemini-tools',
      models: `${GEMINI},${GEMINI_ALIAS}`,
      model_mapping: JSON.stringify({ [GEMINI_ALIAS]: GEMINI }),
    });
    await f.channel({ type: 14, key: 'sk-ant-tools', models: CLAUDE });
    await f.channel({ key: 'sk-tools', models: `${RESPONSES},${SEARCH_CHAT}` });
    key = (await f.token({ unlimited_quota: true })).key;
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it("charges Anthropic's web searches at $10 per 1000, and logs them", async () => {
    f.up.script({ path: '/v1/messages', raw: json(MESSAGE) });
    const anthropic = new Anthropic({ apiKey: key, baseURL: f.gw.url, maxRetries: 0 });
    const before = await f.quota(f.user.id);
    const { response } = await anthropic.messages
      .create({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'weather?' }] })
      .withResponse();
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row.quota).toBe(BASE + toolQuota(2, 10));
    expect(other(row)).toMatchObject({ web_search: true, web_search_call_count: 2, web_search_price: 10 });
    expect(before - (await f.quota(f.user.id))).toBe(BASE + toolQuota(2, 10));
  });

  it("charges the Responses API's hosted searches at the model family's price, streamed or not", async () => {
    const openai = f.openai(key);
    f.up.script({ path: '/v1/responses', raw: json(RESPONSE) });
    const { response } = await openai.responses
      .create({ model: RESPONSES, input: 'find it', tools: [{ type: 'web_search_preview' }] })
      .withResponse();
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    // gpt-4o* web searches are $25 per 1000, file searches $2.5.
    expect(row.quota).toBe(BASE + toolQuota(2, 25) + toolQuota(1, 2.5));
    expect(other(row)).toMatchObject({ web_search_call_count: 2, web_search_price: 25, file_search_call_count: 1, file_search_price: 2.5 });

    const events = [
      { type: 'response.created', sequence_number: 0, response: { ...RESPONSE, status: 'in_progress', output: [], usage: null } },
      { type: 'response.completed', sequence_number: 1, response: RESPONSE },
    ];
    f.up.script({
      path: '/v1/responses',
      raw: {
        status: 200,
        contentType: 'text/event-stream',
        body: events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''),
      },
    });
    const stream = await openai.responses.create({ model: RESPONSES, input: 'find it', stream: true });
    for await (const _ of stream);
    const [streamed] = await f.logCount({ modelName: RESPONSES, isStream: true }, 1);
    expect(streamed.quota).toBe(BASE + toolQuota(2, 25) + toolQuota(1, 2.5));
  });

  it("charges Gemini's Google Search grounding per query (Gemini 3), streamed or not", async () => {
    const openai = f.openai(key);
    const grounded = (queries: string[]) => ({
      candidates: [
        {
          index: 0,
          content: { role: 'model', parts: [{ text: 'Sunny.' }] },
          finishReason: 'STOP',
          groundingMetadata: { webSearchQueries: queries, groundingChunks: [{ web: { uri: 'https://w.example', title: 'w' } }] },
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
    });
    f.up.script({ path: `/v1beta/models/${GEMINI}:generateContent`, raw: json(grounded(['weather paris', 'weather lyon'])) });
    const { response } = await openai.chat.completions
      .create({ model: GEMINI, messages: [{ role: 'user', content: 'weather?' }] })
      .withResponse();
    const row = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(row.quota).toBe(BASE + toolQuota(2, 14));
    expect(other(row)).toMatchObject({ google_search: true, google_search_call_count: 2, google_search_price: 14 });

    // A stream repeats the metadata cumulatively: 3 distinct queries, not 1 + 2 + 3.
    const frames = [grounded(['a']), grounded(['a', 'b']), grounded(['a', 'b', 'c'])];
    f.up.script({
      path: `/v1beta/models/${GEMINI}:streamGenerateContent`,
      raw: {
        status: 200,
        contentType: 'text/event-stream',
        body: frames.map((frame) => `data: ${JSON.stringify(frame)}\r\n\r\n`).join(''),
      },
    });
    const stream = await openai.chat.completions.create({ model: GEMINI, messages: [{ role: 'user', content: 'weather?' }], stream: true });
    for await (const _ of stream);
    const [streamed] = await f.logCount({ modelName: GEMINI, isStream: true }, 1);
    expect(streamed.quota).toBe(BASE + toolQuota(3, 14));

    f.up.script({ path: `/v1beta/models/${GEMINI}:generateContent`, raw: json(grounded(['a', 'b'])) });
    const aliased = await openai.chat.completions
      .create({ model: GEMINI_ALIAS, messages: [{ role: 'user', content: 'weather?' }] })
      .withResponse();
    expect((await f.settled(aliased.response.headers.get('x-oneapi-request-id'))).quota).toBe(BASE + toolQuota(2, 14));
  });

  it('charges one search per chat with a search-preview model, and follows tool_price_setting.prices', async () => {
    const openai = f.openai(key);
    const { response } = await openai.chat.completions
      .create({ model: SEARCH_CHAT, messages: [{ role: 'user', content: 'news?' }] })
      .withResponse();
    expect((await f.settled(response.headers.get('x-oneapi-request-id'))).quota).toBe(BASE + toolQuota(1, 25));

    await f.setOption('tool_price_setting.prices', {
      'web_search_preview:gpt-4o-search*': 0,
      web_search: 40,
      'image_generation/high/1024x1024': 167,
    });
    try {
      // The Responses API's image generation tool, priced by its tier.
      const drawn = {
        ...RESPONSE,
        output: [
          { type: 'image_generation_call', id: 'ig_1', status: 'completed', quality: 'high', size: '1024x1024', result: 'iVBORw0KGgo=' },
        ],
      };
      f.up.script({ path: '/v1/responses', raw: json(drawn) });
      const image = await openai.responses
        .create({ model: RESPONSES, input: 'draw', tools: [{ type: 'image_generation' }] })
        .withResponse();
      const imageRow = await f.settled(image.response.headers.get('x-oneapi-request-id'));
      expect(imageRow.quota).toBe(BASE + toolQuota(1, 167));
      expect(other(imageRow)).toMatchObject({ image_generation: true, image_generation_call_count: 1, image_generation_price: 167 });

      const free = await openai.chat.completions
        .create({ model: SEARCH_CHAT, messages: [{ role: 'user', content: 'news?' }] })
        .withResponse();
      expect((await f.settled(free.response.headers.get('x-oneapi-request-id'))).quota).toBe(BASE);
      f.up.script({ path: '/v1/messages', raw: json(MESSAGE) });
      const anthropic = new Anthropic({ apiKey: key, baseURL: f.gw.url, maxRetries: 0 });
      const dear = await anthropic.messages
        .create({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'weather?' }] })
        .withResponse();
      expect((await f.settled(dear.response.headers.get('x-oneapi-request-id'))).quota).toBe(BASE + toolQuota(2, 40));
    } finally {
      await f.setOption('tool_price_setting.prices', {});
    }
    const bad = await f.root.put('/api/option/', { key: 'tool_price_setting.prices', value: JSON.stringify({ web_search: -1 }) });
    expect(bad.body.success).toBe(false);
    expect(bad.body.message).toMatch(/web_search must be a non-negative number/);
  });
});
