import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TokenCounter } from '../../libs/relay/src/pricing/token-counter.js';
import { testDatabases } from '../support/databases.js';
import { startRelayFixture, type RelayFixture } from './relay-fixture.js';

/**
 * Gemini's native embeddings routes, `{model}:embedContent` and `{model}:batchEmbedContents` under /v1beta and
 * /v1: passed through to Gemini channels (type 24) with the model mapped, billed as new-api bills them (the
 * local count of the request's texts, no completion; a fixed price when set), refused cleanly in Gemini's error
 * shape otherwise.
 */
const EMBED = 'gemini-embedding-001';
/** A name mapped by the channel onto EMBED. */
const ALIAS = 'emb-alias';
/** Priced per call: 0.002 × QuotaPerUnit 500000. */
const PRICED = 'emb-priced';
const PRICED_QUOTA = 1000;
/** On an OpenAI channel (type 1): new-api passes these routes to Gemini channels only. */
const ON_OPENAI = 'emb-on-openai';
const RATIO = 2;

const counter = new TokenCounter();
const promptOf = (text: string) => counter.countTextTokens(EMBED, text);

describe.each(testDatabases())('relay: Gemini embedContent / batchEmbedContents on %s', (kind) => {
  let f: RelayFixture;
  let key: string;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${f.gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const other = (row: any) => (typeof row.other === 'string' ? JSON.parse(row.other) : row.other);

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    await f.setOption('ModelRatio', { [EMBED]: RATIO, [ALIAS]: RATIO, [ON_OPENAI]: RATIO });
    await f.setOption('ModelPrice', { [PRICED]: 0.002 });
    await f.channel({
      type: 24,
      models: [EMBED, ALIAS, PRICED].join(','),
      key: 'gemini-up-key',
      model_mapping: JSON.stringify({ [ALIAS]: EMBED }),
    });
    await f.channel({ type: 1, models: ON_OPENAI, key: 'openai-up-key' });
    key = (await f.token({ unlimited_quota: true })).key;
  });
  afterAll(async () => {
    await f?.close();
  });
  beforeEach(() => f.up.reset());

  it('embedContent (?key=, /v1beta): the body passes through with the model set, the answer comes back as sent', async () => {
    const before = await f.userRow(f.user.id);
    const ask = { content: { parts: [{ text: 'hello world' }, { text: 'again' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 4 };
    const res = await post(`/v1beta/models/${EMBED}:embedContent?key=${key}`, ask);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ embedding: { values: [0.1, 0.2, 0.3, 0] } });
    const sent = f.up.requests[0]!;
    expect(sent.path).toBe(`/v1beta/models/${EMBED}:embedContent`);
    expect(sent.headers['x-goog-api-key']).toBe('gemini-up-key');
    expect(sent.body).toEqual({ ...ask, model: `models/${EMBED}` });

    const prompt = promptOf('hello world\nagain');
    expect(prompt).toBeGreaterThan(0);
    const row = await f.settled(res.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({
      type: 2,
      modelName: EMBED,
      promptTokens: prompt,
      completionTokens: 0,
      quota: prompt * RATIO,
      isStream: false,
    });
    expect(other(row).request_path).toBe(`/v1beta/models/${EMBED}:embedContent`);
    const after = await f.userRow(f.user.id);
    expect(after.usedQuota - before.usedQuota).toBe(prompt * RATIO);
    expect(before.quota - after.quota).toBe(prompt * RATIO);
  });

  it('batchEmbedContents (x-goog-api-key, /v1): every request gets the mapped model; billed on all texts', async () => {
    const ask = {
      requests: [
        { model: `models/${ALIAS}`, content: { parts: [{ text: 'first text' }] } },
        { model: `models/${ALIAS}`, content: { parts: [{ text: 'second' }, { text: 'text' }] }, title: 'doc' },
      ],
    };
    const res = await post(`/v1/models/${ALIAS}:batchEmbedContents`, ask, { 'x-goog-api-key': key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.embeddings).toHaveLength(2);
    expect(body.embeddings[1].values).toEqual([0.1, 0.2, 0.3, 1]);
    const sent = f.up.requests[0]!;
    expect(sent.path).toBe(`/v1beta/models/${EMBED}:batchEmbedContents`);
    expect(sent.headers['x-goog-api-key']).toBe('gemini-up-key');
    expect(sent.body.requests.map((r: any) => r.model)).toEqual([`models/${EMBED}`, `models/${EMBED}`]);
    expect(sent.body.requests[1]).toMatchObject({ title: 'doc', content: ask.requests[1]!.content });

    const prompt = promptOf('first text\nsecond\ntext');
    const row = await f.settled(res.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ modelName: ALIAS, promptTokens: prompt, completionTokens: 0, quota: prompt * RATIO });
    expect(other(row)).toMatchObject({
      is_model_mapped: true,
      upstream_model_name: EMBED,
      request_path: `/v1/models/${ALIAS}:batchEmbedContents`,
    });
  });

  it('a model with a fixed price is charged that price per call', async () => {
    const res = await post(
      `/v1beta/models/${PRICED}:embedContent`,
      { content: { parts: [{ text: 'priced' }] } },
      { 'x-goog-api-key': key },
    );
    expect(res.status).toBe(200);
    const row = await f.settled(res.headers.get('x-oneapi-request-id'));
    expect(row).toMatchObject({ modelName: PRICED, quota: PRICED_QUOTA, completionTokens: 0 });
    expect(other(row).model_price).toBe(0.002);
  });

  it('answers bad bodies with a 400 in Gemini’s error shape, before any upstream call', async () => {
    const cases: [string, unknown][] = [
      ['embedContent', {}],
      ['embedContent', []],
      ['embedContent', { content: 'text' }],
      ['embedContent', { content: { parts: [] } }],
      ['embedContent', { content: { parts: 'x' } }],
      ['embedContent', { content: { parts: [{ text: 3 }] } }],
      ['embedContent', { content: { parts: ['x'] } }],
      ['embedContent', { content: { parts: [{ text: 'x' }] }, outputDimensionality: -1 }],
      ['embedContent', { content: { parts: [{ text: 'x' }] }, taskType: 7 }],
      ['batchEmbedContents', {}],
      ['batchEmbedContents', { requests: [] }],
      ['batchEmbedContents', { requests: {} }],
      ['batchEmbedContents', { requests: [{ content: { parts: [{ text: 'ok' }] } }, { content: null }] }],
      ['batchEmbedContents', { requests: Array.from({ length: 2049 }, () => ({ content: { parts: [{ text: 'x' }] } })) }],
      ['embedContent', '{"content":'],
    ];
    for (const [action, body] of cases) {
      const res = await post(`/v1beta/models/${EMBED}:${action}`, body, { 'x-goog-api-key': key });
      const answer = await res.json();
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(typeof answer.error.message).toBe('string');
    }
    expect(f.up.requests).toHaveLength(0);
  });

  it('refuses a token without access to the model (403) and a bad key (401), in Gemini’s shape', async () => {
    const limited = await f.token({ model_limits_enabled: true, model_limits: PRICED });
    const refused = await post(`/v1beta/models/${EMBED}:embedContent?key=${limited.key}`, { content: { parts: [{ text: 'x' }] } });
    expect(refused.status).toBe(403);
    const body = await refused.json();
    expect(body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    expect(body.error.message).toContain(`no access to model ${EMBED}`);
    const badKey = await post(`/v1beta/models/${EMBED}:batchEmbedContents`, { requests: [] }, { 'x-goog-api-key': 'sk-not-a-key' });
    expect(badKey.status).toBe(401);
    expect((await badKey.json()).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    expect(f.up.requests).toHaveLength(0);
  });

  it('a model served only by a non-Gemini channel gets a clean 400 (new-api passes these to Gemini channels only)', async () => {
    const res = await post(`/v1beta/models/${ON_OPENAI}:embedContent`, { content: { parts: [{ text: 'x' }] } }, { 'x-goog-api-key': key });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(f.up.requests).toHaveLength(0);
  });

  it('passes an upstream error on in Gemini’s shape, not billed', async () => {
    f.up.script({ status: 429 });
    const res = await post(`/v1beta/models/${EMBED}:embedContent`, { content: { parts: [{ text: 'x' }] } }, { 'x-goog-api-key': key });
    expect(res.status).toBe(429);
    expect((await res.json()).error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(await f.logs({ requestId: res.headers.get('x-oneapi-request-id')!, type: 2 })).toHaveLength(0);
  });

  it('still answers 404 for :countTokens (not served: new-api turns it into a billed generateContent)', async () => {
    const res = await post(`/v1beta/models/${EMBED}:countTokens`, { contents: [] }, { 'x-goog-api-key': key });
    expect(res.status).toBe(404);
    expect(f.up.requests).toHaveLength(0);
  });
});
