import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_REPLY } from '../fake-upstream/index.js';
import {
  ERROR_OVERLOADED,
  MESSAGE_TOOL_USE,
  STREAM_CACHE_1H_ZERO_DELTA,
  STREAM_THINKING_TOOL,
} from '../fixtures/relay-formats/anthropic.js';
import { RESPONSE_FUNCTION_CALL, STREAM_TEXT } from '../fixtures/relay-formats/gemini.js';
import { testDatabases } from '../support/databases.js';
import { withoutRequestId } from '../support/relay-error.js';
import { CLAUDE, expectRow, formatQuota, GEMINI, startFormatsFixture, type FormatsFixture } from './relay-formats-fixture.js';

const json = (body: unknown) => ({ contentType: 'application/json', body: JSON.stringify(body) });
const sse = (body: string) => ({ contentType: 'text/event-stream', body });
const TOOLS = [
  {
    type: 'function' as const,
    function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
  },
];

/** Collects an OpenAI stream: text, reasoning, tool calls (joined by index), finish reason and the usage chunk. */
async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = '';
  let reasoning = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  const calls: { id?: string; name?: string; args: string }[] = [];
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      text += choice.delta.content ?? '';
      reasoning += (choice.delta as { reasoning_content?: string }).reasoning_content ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        calls[call.index] ??= { args: '' };
        const seen = calls[call.index]!;
        seen.id ??= call.id;
        seen.name ??= call.function?.name;
        seen.args += call.function?.arguments ?? '';
      }
      finish = choice.finish_reason ?? finish;
    }
  }
  return { text, reasoning, finish, usage, calls };
}

describe.each(testDatabases())('relay: OpenAI chat to Claude and Gemini channels on %s', (kind) => {
  let f: FormatsFixture;
  let client: OpenAI;

  beforeAll(async () => {
    f = await startFormatsFixture(kind);
    client = f.openai(f.apiToken.key);
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  describe.each([
    { family: 'Claude (type 14)', model: CLAUDE, path: '/v1/messages', format: 'anthropic' },
    { family: 'Gemini (type 24)', model: GEMINI, path: `/v1beta/models/${GEMINI}:generateContent`, format: 'gemini' },
  ])('to $family', ({ model, path, format }) => {
    it('answers in OpenAI shape and bills the same usage streamed and not', async () => {
      const { data, response } = await client.chat.completions
        .create({
          model,
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'hi' },
          ],
        })
        .withResponse();
      expect(data.choices[0]!.message.content).toBe(DEFAULT_REPLY);
      expect(data.choices[0]!.finish_reason).toBe('stop');
      expect(data.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 20 });
      expect(f.up.requests[0]!.path).toBe(path);
      const usage = { prompt: 10, completion: 20 };
      expectRow(await f.row(response.headers.get('x-oneapi-request-id')), {
        model,
        ...usage,
        quota: formatQuota(usage),
        stream: false,
        conversion: ['openai', format],
        path: '/v1/chat/completions',
      });

      const { data: stream, response: streamed } = await client.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } })
        .withResponse();
      const got = await collect(stream);
      expect(got.text).toBe(DEFAULT_REPLY);
      expect(got.finish).toBe('stop');
      expect(got.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 20 });
      expectRow(await f.row(streamed.headers.get('x-oneapi-request-id')), {
        model,
        ...usage,
        quota: formatQuota(usage),
        stream: true,
        conversion: ['openai', format],
        path: '/v1/chat/completions',
      });
    });
  });

  it('builds the Anthropic request: system apart, default max_tokens from claude.default_max_tokens, tools, thinking', async () => {
    await f.setOption('claude.default_max_tokens', { default: 2048 });
    try {
      await client.chat.completions.create({
        model: CLAUDE,
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
        tools: TOOLS,
        tool_choice: 'auto',
      });
    } finally {
      await f.setOption('claude.default_max_tokens', {});
    }
    const sent = f.up.requests[0]!;
    expect(sent.headers['x-api-key']).toBe('claude-up-key');
    expect(sent.body).toEqual({
      model: CLAUDE,
      max_tokens: 2048,
      system: 'be brief',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [{ name: 'get_weather', input_schema: TOOLS[0]!.function.parameters }],
      tool_choice: { type: 'auto' },
    });
    await client.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'think' }],
      max_tokens: 8000,
      reasoning_effort: 'medium',
    });
    expect(f.up.requests[1]!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 8000 });
    // Anthropic's smallest budget is 1024 and max_tokens must exceed it: a small max_tokens is raised.
    await client.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'think' }],
      max_tokens: 1000,
      reasoning_effort: 'high',
      temperature: 0.5,
    });
    expect(f.up.requests[2]!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 });
    expect(f.up.requests[2]!.body.temperature).toBeUndefined();
  });

  it("keeps Anthropic's tool_choice valid with parallel_tool_calls, and bills a converted stream's 1-hour cache writes", async () => {
    await client.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'hi' }],
      tools: TOOLS,
      tool_choice: 'none',
      parallel_tool_calls: false,
    });
    await client.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'hi' }],
      tools: TOOLS,
      parallel_tool_calls: false,
    });
    expect(f.up.requests.map((r) => r.body.tool_choice)).toEqual([{ type: 'none' }, { type: 'auto', disable_parallel_tool_use: true }]);

    f.up.script({ times: 1, raw: sse(STREAM_CACHE_1H_ZERO_DELTA) });
    const { data: stream, response } = await client.chat.completions
      .create({ model: CLAUDE, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const got = await collect(stream);
    expect(got).toMatchObject({ text: 'Cached.', finish: 'stop' });
    expect(got.usage).toMatchObject({ prompt_tokens: 430, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 100 } });
    const row = await f.row(response.headers.get('x-oneapi-request-id'));
    const quota = Math.round((30 + 100 * 0.1 + 100 * 1.25 + 200 * 2 + 40 * 3) * 2);
    expectRow(row, {
      model: CLAUDE,
      prompt: 430,
      completion: 40,
      cached: 100,
      created: 300,
      quota,
      stream: true,
      conversion: ['openai', 'anthropic'],
      path: '/v1/chat/completions',
    });
  });

  it('builds a Gemini request Gemini accepts: cleaned tool schemas, JSON mode, signed history calls, no civic-integrity default', async () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: { location: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['c', 'f'] } },
      required: ['location'],
    };
    await client.chat.completions.create({
      model: GEMINI,
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"clear"}' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', strict: true, parameters: schema } }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'answer',
          strict: true,
          schema: { type: 'object', additionalProperties: false, properties: { sky: { type: 'string' } } },
        },
      },
    });
    const sent = f.up.requests[0]!.body;
    expect(sent.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            parameters: {
              type: 'OBJECT',
              properties: { location: { type: 'STRING' }, unit: { type: 'STRING', nullable: true, enum: ['c', 'f'] } },
              required: ['location'],
            },
          },
        ],
      },
    ]);
    expect(sent.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { sky: { type: 'STRING' } } },
    });
    expect(sent.contents[1].parts[0]).toEqual({
      functionCall: { name: 'get_weather', args: { location: 'Paris' } },
      thoughtSignature: 'context_engineering_is_the_way_to_go',
    });
    expect(sent.safetySettings.map((s: { category: string }) => s.category)).not.toContain('HARM_CATEGORY_CIVIC_INTEGRITY');
  });

  it('bills Gemini tool-use prompt tokens and keeps generated images in the content', async () => {
    f.up.script({
      times: 1,
      raw: json({
        candidates: [
          {
            content: { role: 'model', parts: [{ text: 'Here:' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 40, toolUsePromptTokenCount: 60, candidatesTokenCount: 20, totalTokenCount: 120 },
      }),
    });
    const { data, response } = await client.chat.completions
      .create({ model: GEMINI, messages: [{ role: 'user', content: 'draw' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe('Here:\n![image](data:image/png;base64,iVBORw0KGgo=)');
    expect(data.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 20 });
    const usage = { prompt: 100, completion: 20 };
    expectRow(await f.row(response.headers.get('x-oneapi-request-id')), {
      model: GEMINI,
      ...usage,
      quota: formatQuota(usage),
      stream: false,
      conversion: ['openai', 'gemini'],
      path: '/v1/chat/completions',
    });
  });

  it('builds the Gemini request with gemini.safety_settings and the channel key in x-goog-api-key', async () => {
    await f.setOption('gemini.safety_settings', { default: 'BLOCK_ONLY_HIGH', HARM_CATEGORY_HARASSMENT: 'BLOCK_NONE' });
    try {
      await client.chat.completions.create({ model: GEMINI, messages: [{ role: 'user', content: 'hi' }], max_tokens: 30 });
    } finally {
      await f.setOption('gemini.safety_settings', {});
    }
    const sent = f.up.requests[0]!;
    expect(sent.headers['x-goog-api-key']).toBe('gemini-up-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body.contents).toEqual([{ role: 'user', parts: [{ text: 'hi' }] }]);
    expect(sent.body.generationConfig).toEqual({ maxOutputTokens: 30 });
    expect(sent.body.safetySettings).toContainEqual({ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' });
    expect(sent.body.safetySettings).toContainEqual({ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_ONLY_HIGH' });
    expect(sent.body.model).toBeUndefined();
  });

  it('turns Claude tool use, thinking and cache usage into OpenAI tool calls and cached tokens (fixtures, both modes)', async () => {
    const usage = { prompt: 180, completion: 40, cached: 100, created: 50 };
    f.up.script({ times: 1, raw: json(MESSAGE_TOOL_USE) });
    const { data, response } = await client.chat.completions
      .create({ model: CLAUDE, messages: [{ role: 'user', content: 'weather?' }], tools: TOOLS })
      .withResponse();
    expect(data.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        content: "I'll check the weather.",
        tool_calls: [
          {
            id: 'toolu_01A09q90qw90lq917835lq9',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
          },
        ],
      },
    });
    expect(data.usage).toMatchObject({ prompt_tokens: 180, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 100 } });
    expectRow(await f.row(response.headers.get('x-oneapi-request-id')), {
      model: CLAUDE,
      ...usage,
      quota: formatQuota(usage),
      stream: false,
      conversion: ['openai', 'anthropic'],
      path: '/v1/chat/completions',
    });

    f.up.script({ times: 1, raw: sse(STREAM_THINKING_TOOL) });
    const { data: stream, response: streamed } = await client.chat.completions
      .create({
        model: CLAUDE,
        messages: [{ role: 'user', content: 'weather?' }],
        tools: TOOLS,
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const got = await collect(stream);
    expect(got).toMatchObject({ text: "I'll check the weather.", reasoning: 'The user wants weather.', finish: 'tool_calls' });
    expect(got.calls).toEqual([
      { id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', args: '{"location": "San Francisco, CA", "unit": "celsius"}' },
    ]);
    expect(got.usage).toMatchObject({ prompt_tokens: 180, completion_tokens: 40 });
    expectRow(await f.row(streamed.headers.get('x-oneapi-request-id')), {
      model: CLAUDE,
      ...usage,
      quota: formatQuota(usage),
      stream: true,
      conversion: ['openai', 'anthropic'],
      path: '/v1/chat/completions',
    });
  });

  it('turns Gemini function calls, thoughts and cumulative stream usage into OpenAI terms (fixtures, both modes)', async () => {
    const usage = { prompt: 120, completion: 38, cached: 20 };
    f.up.script({ times: 1, raw: json(RESPONSE_FUNCTION_CALL) });
    const { data, response } = await client.chat.completions
      .create({ model: GEMINI, messages: [{ role: 'user', content: 'weather?' }], tools: TOOLS })
      .withResponse();
    expect(data.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        content: 'Checking.',
        tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }],
      },
    });
    expectRow(await f.row(response.headers.get('x-oneapi-request-id')), {
      model: GEMINI,
      ...usage,
      quota: formatQuota(usage),
      stream: false,
      conversion: ['openai', 'gemini'],
      path: '/v1/chat/completions',
    });

    f.up.script({ times: 1, raw: sse(STREAM_TEXT) });
    const { data: stream, response: streamed } = await client.chat.completions
      .create({ model: GEMINI, messages: [{ role: 'user', content: 'sky?' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const got = await collect(stream);
    expect(got).toMatchObject({ text: 'The sky is blue.', reasoning: 'Thinking about it', finish: 'stop' });
    expect(got.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 38 });
    expectRow(await f.row(streamed.headers.get('x-oneapi-request-id')), {
      model: GEMINI,
      ...usage,
      quota: formatQuota(usage),
      stream: true,
      conversion: ['openai', 'gemini'],
      path: '/v1/chat/completions',
    });
  });

  it("gives OpenAI clients the provider's error in OpenAI's shape", async () => {
    f.up.script({ times: 1, raw: { status: 529, ...json(ERROR_OVERLOADED) } });
    const error = await client.chat.completions
      .create({ model: CLAUDE, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(529);
    const { headers, error: body } = error as InstanceType<typeof OpenAI.APIError>;
    expect(body).toMatchObject({ type: 'overloaded_error' });
    expect(withoutRequestId(headers, (body as { message: string }).message)).toBe('Overloaded');
  });

  it('refuses /v1/embeddings on a Claude channel with a clear 400', async () => {
    const error = await client.embeddings.create({ model: CLAUDE, input: 'x' }).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect(f.up.requests).toHaveLength(0);
  });
});
