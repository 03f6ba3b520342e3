import { describe, expect, it } from 'vitest';
import * as fx from '../../../../../test/fixtures/providers/dashscope/fixtures.js';
import { decodeStream, NO_SETTINGS, testCall } from '../native/test-call.js';
import { dashScopeAdaptor } from './index.js';

describe('Alibaba DashScope adaptor (type 17)', () => {
  it('calls text-generation with the Bearer key, X-DashScope-SSE to stream and the plugin from `other`', () => {
    expect(dashScopeAdaptor.buildChatRequest(testCall(17, 'sk-ds', 'qwen-plus', { stream: true, other: 'web_search' }))).toEqual({
      url: 'https://up.example/api/v1/services/aigc/text-generation/generation',
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: 'Bearer sk-ds',
        'x-dashscope-sse': 'enable',
        'x-dashscope-plugin': 'web_search',
      },
    });
    expect(dashScopeAdaptor.buildChatRequest(testCall(17, 'sk-ds', 'qwen-plus')).headers['x-dashscope-sse']).toBeUndefined();
  });

  it('builds input.messages and parameters (message result format, incremental output when streaming)', () => {
    expect(dashScopeAdaptor.codec!.requestFromHub(fx.HUB_REQUEST, 'qwen-plus', NO_SETTINGS)).toEqual(fx.NATIVE_REQUEST);
  });

  it('reads reasoning, cached tokens, the incremental stream (last usage wins) and the error body', () => {
    const { response, usage } = dashScopeAdaptor.codec!.responseToHub(fx.CHAT, 'm');
    expect(response.choices[0].message).toEqual({ role: 'assistant', content: 'Qwen says hi.', reasoning_content: 'Greet back.' });
    expect(usage).toEqual({ promptTokens: 40, completionTokens: 9, cachedTokens: 32 });
    const streamed = decodeStream(dashScopeAdaptor.codec!, fx.STREAM);
    expect(streamed.text).toBe(fx.STREAM_TEXT);
    expect(streamed.usage).toEqual({ promptTokens: 40, completionTokens: 7, cachedTokens: 32 });
    expect(dashScopeAdaptor.codec!.errorMessage!(fx.ERROR)).toBe('Range of max_tokens should be [1, 8192] (InvalidParameter)');
  });

  it('calls text-embedding with input.texts and reads the vectors by text_index', () => {
    expect(dashScopeAdaptor.embeddings!.buildRequest(testCall(17, 'sk-ds', 'text-embedding-v1')).url).toBe(
      'https://up.example/api/v1/services/embeddings/text-embedding/text-embedding',
    );
    expect(dashScopeAdaptor.embeddings!.requestFromOpenAi({ input: 'hello', dimensions: 512 }, 'text-embedding-v3')).toEqual({
      model: 'text-embedding-v3',
      input: { texts: ['hello'] },
      parameters: { dimension: 512 },
    });
    const { response, usage } = dashScopeAdaptor.embeddings!.responseToOpenAi(fx.EMBEDDING, 'emb');
    expect(response.data.map((d: { embedding: number[] }) => d.embedding)).toEqual([
      [-0.125, 1],
      [0.5, 0.25],
    ]);
    expect(usage).toEqual({ promptTokens: 8, completionTokens: 0, cachedTokens: 0 });
  });
});
