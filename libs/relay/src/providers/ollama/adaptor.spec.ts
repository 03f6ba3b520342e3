import { describe, expect, it } from 'vitest';
import * as fx from '../../../../../test/fixtures/providers/ollama/fixtures.js';
import { decodeStream, NO_SETTINGS, scriptedHttp, testCall } from '../native/test-call.js';
import { ollamaAdaptor } from './index.js';

describe('Ollama native adaptor (type 4)', () => {
  it('calls /api/chat and /api/embed, with a Bearer key only when the channel has one', () => {
    expect(ollamaAdaptor.buildChatRequest(testCall(4, '', 'llama3.1', { baseUrl: 'http://127.0.0.1:11434' }))).toEqual({
      url: 'http://127.0.0.1:11434/api/chat',
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
    });
    expect(ollamaAdaptor.embeddings!.buildRequest(testCall(4, 'proxy-key', 'all-minilm')).headers.authorization).toBe('Bearer proxy-key');
    expect(ollamaAdaptor.embeddings!.buildRequest(testCall(4, '', 'all-minilm')).url).toBe('https://up.example/api/embed');
  });

  it('builds the native chat body (options, num_predict, images beside the text)', () => {
    expect(ollamaAdaptor.codec!.requestFromHub(fx.HUB_REQUEST, 'llama3.1', NO_SETTINGS)).toEqual(fx.NATIVE_REQUEST);
  });

  it('reads thinking and counts, and the NDJSON stream turned into events by send()', async () => {
    const { response, usage } = ollamaAdaptor.codec!.responseToHub(fx.CHAT, 'm');
    expect(response.choices[0].message).toEqual({ role: 'assistant', content: 'Llama says hi.', reasoning_content: 'Short answer.' });
    expect(usage).toEqual({ promptTokens: 26, completionTokens: 8, cachedTokens: 0 });

    const { http } = scriptedHttp([{ contentType: 'application/x-ndjson', body: fx.STREAM }]);
    const call = testCall(4, '', 'llama3.1', { stream: true });
    const answer = await ollamaAdaptor.send!(ollamaAdaptor.buildChatRequest(call), { stream: true }, { call, http });
    expect(answer.headers['content-type']).toBe('text/event-stream');
    let events = '';
    for await (const chunk of answer.body) events += chunk.toString();
    const streamed = decodeStream(ollamaAdaptor.codec!, events);
    expect(streamed.text).toBe(fx.STREAM_TEXT);
    expect(streamed.usage).toEqual({ promptTokens: 26, completionTokens: 11, cachedTokens: 0 });
    expect(ollamaAdaptor.codec!.errorMessage!(fx.ERROR)).toBe(fx.ERROR.error);
  });

  it('reads /api/embed vectors and prompt_eval_count', () => {
    expect(ollamaAdaptor.embeddings!.requestFromOpenAi({ input: ['a', 'b'] }, 'all-minilm')).toEqual({
      model: 'all-minilm',
      input: ['a', 'b'],
    });
    const { response, usage } = ollamaAdaptor.embeddings!.responseToOpenAi(fx.EMBEDDING, 'emb');
    expect(response.data).toHaveLength(2);
    expect(usage).toEqual({ promptTokens: 8, completionTokens: 0, cachedTokens: 0 });
  });
});
