import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT, type RelayFixture, startRelayFixture } from './relay-fixture.js';

type ApiError = InstanceType<typeof OpenAI.APIError>;

const OPERATIONS = [
  // Reasoning-style models take no temperature: dropped, and max_tokens renamed, for relay-* models only.
  { mode: 'delete', path: 'temperature', conditions: [{ path: 'model', mode: 'prefix', value: 'relay-' }] },
  { mode: 'move', from: 'max_tokens', to: 'max_completion_tokens', conditions: [{ path: 'max_tokens', mode: 'gt', value: 0 }] },
  { mode: 'set', path: 'user', value: 'gateway', keep_origin: true },
  { mode: 'append', path: 'messages.0.content', value: ' (via gateway)' },
  { mode: 'set', path: 'retried', value: true, conditions: [{ path: 'is_retry', mode: 'full', value: true }] },
  { mode: 'set_header', path: 'X-Team', value: 'blue' },
  { mode: 'pass_headers', value: ['X-Session', 'Authorization'] },
  {
    mode: 'return_error',
    value: { message: 'this model is retired, use relay-chat', status_code: 410, code: 'model_retired' },
    conditions: [{ path: 'original_model', mode: 'full', value: 'relay-retired' }],
  },
];

/**
 * new-api's param override operations (`{"operations": [...]}` in a channel's param_override): body edits by path,
 * conditions on the body and the request, header edits, and return_error, through the official clients.
 */
describe('channel param override operations', () => {
  let f: RelayFixture;
  let openai: OpenAI;
  let key: string;
  const last = () => f.up.requests.at(-1)!;

  beforeAll(async () => {
    f = await startRelayFixture('sqlite');
    await f.setOption('ModelRatio', { [CHAT]: 1, 'relay-retired': 1 });
    await f.channel({
      key: 'sk-ops-a',
      models: `${CHAT},relay-retired`,
      param_override: JSON.stringify({ operations: OPERATIONS }),
      header_override: JSON.stringify({ 'X-Channel': 'a' }),
    });
    key = (await f.token({ unlimited_quota: true })).key;
    openai = f.openai(key);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('edits the body and the headers on the OpenAI path, leaving the client and its key out', async () => {
    const answer = await openai.chat.completions.create(
      { model: CHAT, temperature: 0.3, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'X-Session': 'conv-1' } },
    );
    expect(answer.choices[0]!.message.content).toBeTruthy();
    const sent = last();
    expect(sent.body).toMatchObject({
      model: CHAT,
      max_completion_tokens: 50,
      user: 'gateway',
      messages: [{ role: 'user', content: 'hi (via gateway)' }],
    });
    expect(sent.body).not.toHaveProperty('temperature');
    expect(sent.body).not.toHaveProperty('max_tokens');
    expect(sent.body).not.toHaveProperty('retried');
    expect(sent.headers).toMatchObject({ 'x-team': 'blue', 'x-session': 'conv-1', 'x-channel': 'a', authorization: 'Bearer sk-ops-a' });
  });

  it('applies the same operations to a converted request (Anthropic client to an OpenAI channel)', async () => {
    const anthropic = new Anthropic({ apiKey: key, baseURL: f.gw.url, maxRetries: 0 });
    // temperature: a field this SDK version no longer types, still part of Anthropic's API.
    const params = { model: CHAT, max_tokens: 64, temperature: 0.5, messages: [{ role: 'user' as const, content: 'hello' }] };
    const message = await anthropic.messages.create(params as Anthropic.MessageCreateParamsNonStreaming, {
      headers: { 'X-Session': 'conv-2' },
    });
    expect(message.content[0]!.type).toBe('text');
    const sent = last();
    expect(sent.path).toMatch(/\/chat\/completions$/);
    expect(sent.body).not.toHaveProperty('temperature');
    expect(sent.body.messages.at(0).content).toMatch(/ \(via gateway\)$/);
    expect(sent.headers).toMatchObject({ 'x-team': 'blue', 'x-session': 'conv-2' });
  });

  it('answers return_error in the client shape, calling no provider and charging nothing', async () => {
    const calls = f.up.requests.length;
    const before = await f.quota(f.user.id);
    const error = await openai.chat.completions.create({ model: 'relay-retired', messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (e: unknown) => e as ApiError,
    );
    expect(error?.status).toBe(410);
    expect(error?.code).toBe('model_retired');
    expect(error?.message).toMatch(/^410 this model is retired, use relay-chat/);
    expect(f.up.requests.length).toBe(calls);
    await expect.poll(() => f.quota(f.user.id)).toBe(before);
  });

  it('marks a retry for the conditions (is_retry) on the next channel', async () => {
    await f.setOption('RetryTimes', '1');
    const second = await f.channel({
      key: 'sk-ops-b',
      models: CHAT,
      param_override: JSON.stringify({ operations: OPERATIONS }),
    });
    try {
      // Whichever channel is picked first fails once; the retry goes to the other one.
      f.up.script({ path: '/v1/chat/completions', status: 500, times: 1 });
      const before = f.up.requests.length;
      await openai.chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'retry me' }] });
      const [first, retry] = f.up.requests.slice(before);
      expect(first!.body).not.toHaveProperty('retried');
      expect(retry!.body.retried).toBe(true);
      // Each attempt starts again from the client's body (the first attempt's edits are not applied twice).
      expect(retry!.body.messages[0].content).toBe('retry me (via gateway)');
    } finally {
      await f.setOption('RetryTimes', '0');
      await f.root.delete(`/api/channel/${second}`);
    }
  });

  it('applies the override to channel tests too, with is_channel_test in the context (OpenAI and Claude channels)', async () => {
    const operations = [
      { mode: 'move', from: 'max_tokens', to: 'max_completion_tokens' },
      { mode: 'set', path: 'metadata.test', value: true, conditions: [{ path: 'is_channel_test', mode: 'full', value: true }] },
      { mode: 'set_header', path: 'X-Probe', value: 'yes' },
    ];
    const openaiChannel = await f.channel({ key: 'sk-ops-test', models: CHAT, param_override: JSON.stringify({ operations }) });
    expect((await f.root.get(`/api/channel/test/${openaiChannel}`)).body).toMatchObject({ success: true });
    expect(last().body).toMatchObject({ max_completion_tokens: 16, metadata: { test: true } });
    expect(last().body).not.toHaveProperty('max_tokens');
    expect(last().headers['x-probe']).toBe('yes');

    const claude = await f.channel({ type: 14, key: 'sk-ant-ops', models: 'claude-ops', param_override: JSON.stringify({ operations }) });
    expect((await f.root.get(`/api/channel/test/${claude}`)).body).toMatchObject({ success: true });
    expect(last().path).toBe('/v1/messages');
    expect(last().body).toMatchObject({ max_completion_tokens: 16, metadata: { test: true } });
    expect(last().headers['x-probe']).toBe('yes');

    // A return_error meant for tests fails the test with its message, sending nothing.
    const refusing = await f.channel({
      key: 'sk-ops-refuse',
      models: CHAT,
      param_override: JSON.stringify({
        operations: [{ mode: 'return_error', value: 'no tests on this channel', conditions: { is_channel_test: true } }],
      }),
    });
    const calls = f.up.requests.length;
    expect((await f.root.get(`/api/channel/test/${refusing}`)).body).toMatchObject({ success: false, message: 'no tests on this channel' });
    expect(f.up.requests.length).toBe(calls);
    for (const id of [openaiChannel, claude, refusing]) await f.root.delete(`/api/channel/${id}`);
  });

  it("applies operations to providers' own embeddings, rerank and Gemini embedContent calls, headers included", async () => {
    const mark = (extra: object[] = []) =>
      JSON.stringify({ operations: [{ mode: 'set_header', path: 'X-Op', value: 'native' }, ...extra] });
    const json = (body: unknown) => ({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    await f.setOption('ModelRatio', {
      [CHAT]: 1,
      'relay-retired': 1,
      'ops-embed': 1,
      'ops-rerank': 1,
      'ops-rerank-off': 1,
      'ops-gemini': 1,
    });
    const ollama = await f.channel({
      type: 4,
      key: 'ollama-ops',
      models: 'ops-embed',
      param_override: mark([{ mode: 'set', path: 'keep_alive', value: '5m' }]),
    });
    const cohere = await f.channel({
      type: 34,
      key: 'cohere-ops',
      models: 'ops-rerank,ops-rerank-off',
      param_override: mark([
        { mode: 'set', path: 'top_n', value: 1 },
        {
          mode: 'return_error',
          value: { message: 'rerank is off for this model', status_code: 403 },
          conditions: [{ path: 'original_model', mode: 'full', value: 'ops-rerank-off' }],
        },
      ]),
    });
    const gemini = await f.channel({
      type: 24,
      key: 'gemini-ops',
      models: 'ops-gemini',
      param_override: mark([
        {
          mode: 'set',
          path: 'outputDimensionality',
          value: 8,
          conditions: [{ path: 'request_path', mode: 'contains', value: ':embedContent' }],
        },
      ]),
    });
    try {
      f.up.script({ path: '/api/embed', raw: json({ model: 'ops-embed', embeddings: [[0.5, 0.25]], prompt_eval_count: 3 }) });
      const embedded = await openai.embeddings.create({ model: 'ops-embed', input: 'hello', encoding_format: 'float' });
      expect(embedded.data[0]!.embedding).toEqual([0.5, 0.25]);
      expect(last()).toMatchObject({ path: '/api/embed', body: { model: 'ops-embed', input: ['hello'], keep_alive: '5m' } });
      expect(last().headers['x-op']).toBe('native');

      f.up.script({ path: '/v1/rerank', raw: json({ id: 'r1', results: [{ index: 1, relevance_score: 0.9 }] }) });
      const rerank = (model: string) =>
        fetch(`${f.gw.url}/v1/rerank`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, query: 'capital', documents: ['a', 'b', 'c'], top_n: 3 }),
        });
      const ranked = await rerank('ops-rerank');
      expect(ranked.status).toBe(200);
      expect(last()).toMatchObject({ path: '/v1/rerank', body: { model: 'ops-rerank', query: 'capital', top_n: 1 } });
      expect(last().headers['x-op']).toBe('native');
      const calls = f.up.requests.length;
      const refused = await rerank('ops-rerank-off');
      expect(refused.status).toBe(403);
      expect((await refused.json()).error.message).toMatch(/^rerank is off for this model/);
      expect(f.up.requests.length).toBe(calls);

      const res = await fetch(`${f.gw.url}/v1beta/models/ops-gemini:embedContent?key=${key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: { parts: [{ text: 'hello' }] } }),
      });
      expect(res.status).toBe(200);
      expect(last().body).toMatchObject({ model: 'models/ops-gemini', outputDimensionality: 8 });
      expect(last().headers['x-op']).toBe('native');
    } finally {
      for (const id of [ollama, cohere, gemini]) await f.root.delete(`/api/channel/${id}`);
    }
  });

  it('refuses to save a channel whose operations name an unknown mode or a bad condition', async () => {
    const save = (operations: unknown) =>
      f.root.post('/api/channel/', {
        mode: 'single',
        channel: {
          type: 1,
          name: 'ops-bad',
          key: 'sk-bad',
          models: CHAT,
          base_url: f.up.url,
          param_override: JSON.stringify({ operations }),
        },
      });
    const unknown = await save([{ mode: 'explode', path: 'x' }]);
    expect(unknown.body.success).toBe(false);
    expect(unknown.body.message).toMatch(/^param override: operations\[0\]\.mode must be one of set, delete, /);
    const condition = await save([{ mode: 'set', path: 'x', value: 1, conditions: [{ path: 'model', mode: 'like', value: 'gpt' }] }]);
    expect(condition.body.message).toMatch(/^param override: operations\[0\]\.conditions\[0\]\.mode must be one of full, /);
  });

  it('fails with the channel error param_override_invalid when an operation cannot run', async () => {
    const broken = await f.channel({
      key: 'sk-ops-broken',
      models: 'relay-broken',
      param_override: JSON.stringify({ operations: [{ mode: 'to_upper', path: 'messages' }] }),
    });
    await f.setOption('ModelRatio', { [CHAT]: 1, 'relay-retired': 1, 'relay-broken': 1 });
    const calls = f.up.requests.length;
    const error = await openai.chat.completions.create({ model: 'relay-broken', messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (e: unknown) => e as ApiError,
    );
    expect(error?.status).toBe(500);
    expect(error?.code).toBe('channel:param_override_invalid');
    expect(error?.message).toMatch(/channel param override failed: operation to_upper failed/);
    expect(f.up.requests.length).toBe(calls);
    await f.root.delete(`/api/channel/${broken}`);
  });
});
