import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeNativeUpstream, startFakeNativeUpstream } from '../fake-upstream/native/index.js';
import { OLLAMA_VERSION } from '../fake-upstream/native/ollama.js';
import { testDatabases } from '../support/databases.js';
import { type RelayFixture, startRelayFixture } from './relay-fixture.js';

/** The data payloads of a server-sent-events body. */
const events = (text: string) =>
  text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6));

describe.each(testDatabases())('channel page: Ollama model management on %s', (kind) => {
  let f: RelayFixture;
  let native: FakeNativeUpstream;
  let ollamaId: number;
  let openAiId: number;

  beforeAll(async () => {
    f = await startRelayFixture(kind);
    native = await startFakeNativeUpstream();
    ollamaId = await f.channel({ type: 4, key: 'ollama-proxy-key', base_url: native.url, models: 'llama3.1' });
    openAiId = await f.channel({ type: 1, key: 'sk-x', base_url: native.url, models: 'gpt-4o' });
  });
  afterAll(async () => {
    await f?.close();
    await native?.close();
  });
  beforeEach(() => native.reset());

  it('reports the server version', async () => {
    const res = await f.root.get(`/api/channel/ollama/version/${ollamaId}`);
    expect(res.body).toEqual({ success: true, message: '', data: { version: OLLAMA_VERSION } });
    expect(native.requests[0]).toMatchObject({ method: 'GET', path: '/api/version' });
    expect(native.requests[0]!.headers.authorization).toBe('Bearer ollama-proxy-key');
  });

  it('pulls a model, and says why when Ollama cannot', async () => {
    const res = await f.root.post('/api/channel/ollama/pull', { channel_id: ollamaId, model_name: 'qwen2.5:0.5b' });
    expect(res.body).toEqual({ success: true, message: 'Model qwen2.5:0.5b pulled successfully' });
    expect(native.requests[0]!.body).toEqual({ model: 'qwen2.5:0.5b', name: 'qwen2.5:0.5b', stream: false });
    const missing = await f.root.post('/api/channel/ollama/pull', { channel_id: ollamaId, model_name: 'missing-model' });
    expect(missing.body).toMatchObject({ success: false, message: 'Failed to pull model: pull model manifest: file does not exist' });
  });

  it('streams the pull progress as server-sent events, then the result and [DONE]', async () => {
    const res = await f.root.post('/api/channel/ollama/pull/stream', { channel_id: ollamaId, model_name: 'phi3' });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const data = events(res.text);
    expect(data.at(-1)).toBe('[DONE]');
    expect(JSON.parse(data.at(-2)!)).toEqual({ message: 'Model phi3 pulled successfully' });
    const progress = data.slice(0, -2).map((line) => JSON.parse(line));
    expect(progress[0]).toEqual({ status: 'pulling manifest' });
    expect(progress).toContainEqual({
      status: 'pulling 6a0746a1ec1a',
      digest: 'sha256:6a0746a1ec1a',
      total: 4661224676,
      completed: 4661224676,
    });
    expect(native.requests[0]!.body.stream).toBe(true);
  });

  it('deletes a model with DELETE /api/delete, and reports one Ollama does not have', async () => {
    await f.root.post('/api/channel/ollama/pull', { channel_id: ollamaId, model_name: 'gone-soon' });
    const res = await f.root.request('DELETE', '/api/channel/ollama/delete', { channel_id: ollamaId, model_name: 'gone-soon' });
    expect(res.body).toEqual({ success: true, message: 'Model gone-soon deleted successfully' });
    expect(native.requests.at(-1)).toMatchObject({
      method: 'DELETE',
      path: '/api/delete',
      body: { model: 'gone-soon', name: 'gone-soon' },
    });
    const again = await f.root.request('DELETE', '/api/channel/ollama/delete', { channel_id: ollamaId, model_name: 'gone-soon' });
    expect(again.body).toMatchObject({ success: false, message: "Failed to delete model: model 'gone-soon' not found" });
  });

  it('refuses other channel types, unknown channels, bad input and non-admins without calling anything', async () => {
    expect((await f.root.post('/api/channel/ollama/pull', { channel_id: openAiId, model_name: 'x' })).body).toMatchObject({
      success: false,
      message: 'This operation is only supported for Ollama channels',
    });
    expect((await f.root.get('/api/channel/ollama/version/999999')).body.success).toBe(false);
    const bad = await f.root.post('/api/channel/ollama/pull', { channel_id: ollamaId });
    expect(bad.status).toBeLessThan(500);
    expect(bad.body).toMatchObject({ success: false, message: 'Channel ID and model name are required' });
    const user = await f.user.client.post('/api/channel/ollama/pull', { channel_id: ollamaId, model_name: 'x' });
    expect(user.body.success).toBe(false);
    expect(native.requests).toHaveLength(0);
  });
});
