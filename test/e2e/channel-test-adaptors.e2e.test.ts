import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChannelMonitorService } from '@gw/channel';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/index.js';
import * as bedrock from '../fixtures/providers/bedrock/index.js';
import * as coze from '../fixtures/providers/coze/index.js';
import { ERROR_OVERLOADED } from '../fixtures/relay-formats/anthropic.js';
import { ERROR_INVALID_ARGUMENT } from '../fixtures/relay-formats/gemini.js';
import type { ApiClient } from '../support/api-client.js';
import { testDatabases } from '../support/databases.js';
import { setupRoot, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const json = (body: unknown, status = 200) => ({ status, contentType: 'application/json', body: JSON.stringify(body) });

describe.each(testDatabases())('channel tests through each adaptor on %s', (kind) => {
  let gw: TestGateway;
  let root: ApiClient;
  let up: FakeUpstream;
  let n = 0;

  async function create(channel: Record<string, unknown>): Promise<number> {
    const res = await root.post('/api/channel/', {
      mode: 'single',
      channel: { name: `probe-${++n}`, key: `key-${n}`, base_url: up.url, ...channel },
    });
    expect(res.body.success, res.text).toBe(true);
    return res.body.data.ids[0];
  }
  const test = async (id: number, model?: string) =>
    (await root.get(`/api/channel/test/${id}${model ? `?model=${encodeURIComponent(model)}` : ''}`)).body;

  beforeAll(async () => {
    up = await startFakeUpstream();
    gw = await startTestGateway(kind);
    root = await setupRoot(gw);
  });
  afterAll(async () => {
    await gw?.close();
    await up?.close();
  });
  beforeEach(() => up.reset());

  it('tests a Claude channel with a Messages call (its key header, Anthropic body)', async () => {
    const id = await create({ type: 14, key: 'sk-ant-probe', models: 'claude-3-5-haiku-20241022' });
    expect(await test(id)).toEqual({ success: true, message: '', time: expect.any(Number) });
    expect(up.requests).toHaveLength(1);
    const sent = up.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant-probe');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.body).toEqual({
      model: 'claude-3-5-haiku-20241022',
      max_tokens: 16,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    expect((await root.get(`/api/channel/${id}`)).body.data.test_time).toBeGreaterThan(1_700_000_000);

    up.script({ times: 1, raw: json(ERROR_OVERLOADED, 529) });
    expect(await test(id)).toMatchObject({ success: false, message: 'Overloaded' });
  });

  it('tests a Gemini channel with generateContent (the mapped model in the path, x-goog-api-key)', async () => {
    const id = await create({
      type: 24,
      key: 'gemini-probe-key',
      models: 'gemini-flash',
      model_mapping: JSON.stringify({ 'gemini-flash': 'gemini-2.5-flash' }),
    });
    expect(await test(id)).toMatchObject({ success: true, message: '' });
    const sent = up.requests[0]!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('gemini-probe-key');
    expect(sent.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 16 } });

    // An error object in a 200 answer is a failed test too.
    up.script({ times: 1, raw: json(ERROR_INVALID_ARGUMENT) });
    expect(await test(id)).toMatchObject({ success: false, message: ERROR_INVALID_ARGUMENT.error.message });
  });

  it('tests an AWS Bedrock channel with a SigV4-signed InvokeModel, and reports an unusable key', async () => {
    const id = await create({ type: 33, key: bedrock.KEY, models: bedrock.CHAT_REQUEST.model });
    up.script({ path: bedrock.INVOKE_PATH, times: 1, raw: json(bedrock.INVOKE_RESPONSE) });
    expect(await test(id)).toMatchObject({ success: true, message: '' });
    const sent = up.requests[0]!;
    expect(sent.path).toBe(bedrock.INVOKE_PATH);
    expect(sent.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//);
    expect(sent.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 16 });

    up.script({ path: bedrock.INVOKE_PATH, times: 1, raw: json(bedrock.ERROR_VALIDATION, 400) });
    expect(await test(id)).toMatchObject({ success: false, message: bedrock.ERROR_VALIDATION.message });

    const broken = await create({ type: 33, key: 'AKID|only-two-parts', models: bedrock.CHAT_REQUEST.model });
    const result = await test(broken);
    expect(result).toMatchObject({ success: false, message: expect.stringMatching(/AccessKey\|SecretKey\|Region/) });
    expect(result.message).not.toContain('only-two-parts');
  });

  it('tests a stream-only Coze bot by reading its stream whole, and fails on a failed chat', async () => {
    const id = await create({ type: 49, key: coze.TOKEN, other: coze.BOT_ID, models: 'coze-bot' });
    up.script({ path: coze.PATH, times: 1, raw: { contentType: 'text/event-stream', body: coze.STREAM } });
    expect(await test(id)).toMatchObject({ success: true, message: '' });
    expect(up.requests[0]!.body).toMatchObject({ bot_id: coze.BOT_ID, stream: true });
    up.script({ path: coze.PATH, times: 1, raw: { contentType: 'text/event-stream', body: coze.STREAM_FAILED } });
    expect(await test(id)).toMatchObject({ success: false, message: expect.stringMatching(/not published/) });
  });

  it('tests an embedding model with an embedding call', async () => {
    const id = await create({ type: 1, models: 'text-embedding-3-small' });
    expect(await test(id)).toMatchObject({ success: true });
    expect(up.requests[0]).toMatchObject({ path: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: ['hi'] } });
  });

  it('includes adaptor channels in the periodic health check', async () => {
    for (const item of (await root.get('/api/channel/?page_size=100')).body.data.items)
      await root.put('/api/channel/', { id: item.id, status: 2 });
    await create({ type: 14, key: 'sk-ant-cycle', models: 'claude-3-5-haiku-20241022' });
    await create({ type: 24, key: 'gemini-cycle', models: 'gemini-2.5-flash' });
    const summary = await gw.gateway.app.get(ChannelMonitorService).runCycle();
    expect(summary).toMatchObject({ tested: 2, failed: 0 });
    expect(up.requests.map((r) => r.path).sort()).toEqual(['/v1/messages', '/v1beta/models/gemini-2.5-flash:generateContent']);
  });
});
