import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { UserNotifyService } from '@gw/user';
import { DEFAULT_REPLY } from '../fake-upstream/index.js';
import { testDatabases } from '../support/databases.js';
import { CHAT, EMBED, INSTRUCT, ratioQuota, startRelayFixture, type RelayFixture } from './relay-fixture.js';
import { relayError } from '../support/relay-error.js';

describe.each(testDatabases())('relay: OpenAI routes, billing and logs on %s', (kind) => {
  let f: RelayFixture;
  let token: { id: number; key: string };

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.channel();
    token = await f.token({ remain_quota: 1_000_000 });
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('relays a non-stream chat completion, charges the exact quota and writes the log row', async () => {
    const quotaChanged = vi.spyOn(f.gw.gateway.app.get(UserNotifyService), 'quotaChanged');
    const before = await f.userRow(f.user.id);
    const tokenBefore = await f.tokenRow(token.id);
    const { data, response } = await f
      .openai(token.key)
      .chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe(DEFAULT_REPLY);
    expect(data.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 20 });
    const requestId = response.headers.get('x-oneapi-request-id');
    expect(requestId).toMatch(/^\d{17}[A-Za-z0-9]{8}$/);
    const log = await f.settled(requestId);

    const charge = ratioQuota(CHAT);
    expect(charge).toBe(140);
    const after = await f.userRow(f.user.id);
    expect(after.quota).toBe(before.quota - charge);
    expect(after.usedQuota).toBe(before.usedQuota + charge);
    expect(after.requestCount).toBe(before.requestCount + 1);
    const tokenAfter = await f.tokenRow(token.id);
    expect(tokenAfter.remainQuota).toBe(tokenBefore.remainQuota - charge);
    expect(tokenAfter.usedQuota).toBe(tokenBefore.usedQuota + charge);

    expect(log).toMatchObject({
      userId: f.user.id,
      type: 2,
      modelName: CHAT,
      quota: charge,
      promptTokens: 10,
      completionTokens: 20,
      tokenId: token.id,
      group: 'default',
      isStream: false,
    });
    const other = JSON.parse(log.other);
    expect(other).toMatchObject({
      model_ratio: 2,
      group_ratio: 1,
      completion_ratio: 3,
      model_price: -1,
      cache_tokens: 0,
      request_path: '/v1/chat/completions',
    });
    expect(other.admin_info.use_channel).toHaveLength(1);
    expect(typeof other.frt).toBe('number');
    expect(f.up.requests[0]!.body.model).toBe(CHAT);
    // The low-balance warning is checked after every charge (UserNotifyService throttles the reads).
    expect(quotaChanged).toHaveBeenCalledWith(f.user.id);
    quotaChanged.mockRestore();
  });

  it('streams chunk by chunk, forces include_usage upstream, strips the usage chunk the client turned off', async () => {
    const before = await f.quota(f.user.id);
    const { data: stream, response } = await f
      .openai(token.key)
      .chat.completions.create({
        model: CHAT,
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: false },
      })
      .withResponse();
    let text = '';
    let usageChunks = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usageChunks++;
    }
    expect(text).toBe(DEFAULT_REPLY);
    expect(usageChunks).toBe(0);
    expect(f.up.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    const log = await f.settled(response.headers.get('x-oneapi-request-id'));
    expect(log).toMatchObject({ quota: ratioQuota(CHAT), promptTokens: 10, completionTokens: 20, isStream: true });
    expect(await f.quota(f.user.id)).toBe(before - ratioQuota(CHAT));
  });

  it("sends the usage chunk to a stream without stream_options (new-api's default), upstream's or estimated", async () => {
    const ask = () =>
      f
        .openai(token.key)
        .chat.completions.create({ model: CHAT, messages: [{ role: 'user', content: 'hi' }], stream: true })
        .withResponse();
    const usagesOf = async (stream: AsyncIterable<{ usage?: unknown; choices: unknown[] }>) => {
      const usages: { prompt_tokens: number; completion_tokens: number }[] = [];
      for await (const chunk of stream) if (chunk.usage) usages.push(chunk.usage as (typeof usages)[number]);
      return usages;
    };
    const { data: stream, response } = await ask();
    const usages = await usagesOf(stream);
    expect(usages).toEqual([expect.objectContaining({ prompt_tokens: 10, completion_tokens: 20 })]);
    await f.settled(response.headers.get('x-oneapi-request-id'));

    f.up.script({ omitUsage: true });
    const { data: estimated, response: estimatedResponse } = await ask();
    const synthetic = await usagesOf(estimated);
    expect(synthetic).toHaveLength(1);
    expect(synthetic[0]!.completion_tokens).toBeGreaterThan(0);
    expect(await f.settled(estimatedResponse.headers.get('x-oneapi-request-id'))).toMatchObject({
      completionTokens: synthetic[0]!.completion_tokens,
    });
  });

  it('passes the usage chunk through when the client asks for it', async () => {
    const { data: stream, response } = await f
      .openai(token.key)
      .chat.completions.create({
        model: CHAT,
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const usages: unknown[] = [];
    for await (const chunk of stream) if (chunk.usage) usages.push(chunk.usage);
    expect(usages).toHaveLength(1);
    expect(usages[0]).toMatchObject({ prompt_tokens: 10, completion_tokens: 20 });
    await f.settled(response.headers.get('x-oneapi-request-id'));
  });

  it('relays legacy completions and embeddings with their own prices', async () => {
    const before = await f.quota(f.user.id);
    const completion = await f.openai(token.key).completions.create({ model: INSTRUCT, prompt: 'say hi' }).withResponse();
    expect(completion.data.choices[0]!.text).toBe(DEFAULT_REPLY);
    const embedding = await f
      .openai(token.key)
      .embeddings.create({ model: EMBED, input: ['a', 'b'] })
      .withResponse();
    expect(embedding.data.data).toHaveLength(2);
    await f.settled(completion.response.headers.get('x-oneapi-request-id'));
    await f.settled(embedding.response.headers.get('x-oneapi-request-id'));
    // Embeddings: 10 prompt tokens, no completion.
    expect(await f.quota(f.user.id)).toBe(before - ratioQuota(INSTRUCT) - ratioQuota(EMBED, 10, 0));
    expect(f.up.requests.map((r) => r.path)).toEqual(['/v1/completions', '/v1/embeddings']);
  });

  it('lists and retrieves the models the token may use', async () => {
    const client = f.openai(token.key);
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids.sort()).toEqual([CHAT, EMBED, INSTRUCT].sort());
    expect(await client.models.retrieve(CHAT)).toMatchObject({ id: CHAT, object: 'model' });
    await expect(client.models.retrieve('nope')).rejects.toMatchObject({ status: 404 });
    const limited = await f.token({ model_limits_enabled: true, model_limits: CHAT });
    const limitedIds: string[] = [];
    for await (const model of f.openai(limited.key).models.list()) limitedIds.push(model.id);
    expect(limitedIds).toEqual([CHAT]);
  });

  it('answers bad requests with 400 OpenAI errors and a request id', async () => {
    const auth = { Authorization: `Bearer ${token.key}` };
    const broken = await f.gw.client().raw('POST', '/v1/chat/completions', '{"model":', auth);
    expect(broken.status).toBe(400);
    expect(broken.body.error.type).toBe('invalid_request_error');
    expect(broken.headers.get('x-oneapi-request-id')).toBeTruthy();
    const noModel = await f.gw.client().post('/v1/chat/completions', { messages: [] }, auth);
    expect(noModel.status).toBe(400);
    expect(noModel.body.error.message).toContain('model');
    const noMessages = await f.gw.client().post('/v1/chat/completions', { model: CHAT, messages: 'hi' }, auth);
    expect(noMessages.status).toBe(400);
    const hugeMax = await f.gw.client().post('/v1/chat/completions', { model: CHAT, messages: [], max_tokens: 2 ** 53 }, auth);
    expect(hugeMax.status).toBe(400);
    expect(noMessages.headers.get('x-oneapi-request-id')).toBeTruthy();
    expect(f.up.requests).toHaveLength(0);
  });

  it('refuses a bad key (401), a model outside the limits (403), an unpriced model (400) and a model with no channel (503)', async () => {
    await expect(f.openai('sk-not-a-key').chat.completions.create({ model: CHAT, messages: [] })).rejects.toMatchObject({ status: 401 });
    const limited = await f.token({ model_limits_enabled: true, model_limits: EMBED });
    await expect(f.openai(limited.key).chat.completions.create({ model: CHAT, messages: [] })).rejects.toMatchObject({ status: 403 });
    await f.channel({ models: 'unpriced-model' });
    const unpriced = await f.gw
      .client()
      .post('/v1/chat/completions', { model: 'unpriced-model', messages: [] }, { Authorization: `Bearer ${token.key}` });
    expect(unpriced.status).toBe(400);
    expect(unpriced.body.error).toMatchObject({ code: 'model_price_error', type: 'new_api_error' });
    expect(unpriced.body.error.message).toContain('unpriced-model');
    await f.setOption('SelfUseModeEnabled', 'true');
    try {
      const selfUse = await f.gw
        .client()
        .post('/v1/chat/completions', { model: 'unpriced-model', messages: [] }, { Authorization: `Bearer ${token.key}` });
      expect(selfUse.status).toBe(200);
      const log = await f.settled(selfUse.headers.get('x-oneapi-request-id'));
      const other = JSON.parse(log.other);
      expect(other.model_ratio).toBe(37.5);
      expect(log.quota).toBe(Math.round((10 + 20 * other.completion_ratio) * 37.5));
    } finally {
      await f.setOption('SelfUseModeEnabled', 'false');
    }
    await f.setOption('ModelRatio', { [CHAT]: 2, [EMBED]: 0.5, [INSTRUCT]: 1, 'orphan-model': 1 });
    const orphan = await f.gw
      .client()
      .post('/v1/chat/completions', { model: 'orphan-model', messages: [] }, { Authorization: `Bearer ${token.key}` });
    expect(orphan.status).toBe(503);
    expect(relayError(orphan).error).toEqual({
      message: 'no available channel for model orphan-model under group default',
      type: 'new_api_error',
      param: '',
      code: 'model_not_found',
    });
    expect(orphan.headers.get('x-oneapi-request-id')).toBeTruthy();
  });

  it('refuses a user without enough quota with 403 insufficient_user_quota and charges nothing', async () => {
    // Through the admin API, so the gateway knows the balance is short and reserves before any upstream call
    // (behind its back it may start the call beside the reserve, then cancel it: billing-reserve-beside).
    const set = await f.root.put('/api/user/', { id: f.user.id, quota: 100 });
    expect(set.body.success, set.text).toBe(true);
    try {
      const res = await f.gw
        .client()
        .post(
          '/v1/chat/completions',
          { model: CHAT, messages: [{ role: 'user', content: 'hi' }] },
          { Authorization: `Bearer ${token.key}` },
        );
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_user_quota');
      expect(await f.quota(f.user.id)).toBe(100);
      expect(f.up.requests).toHaveLength(0);
    } finally {
      await f.setQuota(f.user.id, 10_000_000);
    }
  });

  it('refuses a token without enough quota with 403 pre_consume_token_quota_failed', async () => {
    const small = await f.token({ remain_quota: 50 });
    const res = await f.gw
      .client()
      .post('/v1/chat/completions', { model: CHAT, messages: [{ role: 'user', content: 'hi' }] }, { Authorization: `Bearer ${small.key}` });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('pre_consume_token_quota_failed');
    expect((await f.tokenRow(small.id)).remainQuota).toBe(50);
  });
});
